// The project tools, loaded on their first call: a worker that only runs test sessions never loads the
// sandbox, the bounded runner or the process library beneath them.
import type { ProjectScriptOptions, ProjectScriptResult } from './runner.js'
import type { SandboxOptions, SandboxResult, SmokeSessionStarter } from './sandbox.js'

/**
 * The package as a user gets it: packed, installed into a fresh project and loaded by Pi's own loader, then
 * `expect` checked and the smoke playbook run. A failed check is a 'failed' result; a step that cannot run
 * throws a SandboxError.
 */
export async function verifySandboxInstall(options: SandboxOptions, startSession?: SmokeSessionStarter): Promise<SandboxResult> {
  const sandbox = await import('./sandbox.js')
  return sandbox.verifySandboxInstall(options, startSession)
}

/** Runs one allowed npm script of the project in `cwd` under the bounded runner, one at a time per process. */
export async function runProjectScript(options?: ProjectScriptOptions): Promise<ProjectScriptResult> {
  const runner = await import('./runner.js')
  return runner.runProjectScript(options)
}
