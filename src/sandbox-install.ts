// verifySandboxInstall with the smoke able to run at either depth: the process depth sits above the sandbox's
// stage, so the public entry point hands the sandbox the createTestSession that chooses the depth.
import { verifySandboxInstall as verify } from './project/on-demand.js'
import type { SandboxOptions, SandboxResult } from './project/sandbox.js'
import { createTestSession } from './test-session.js'

/**
 * The package as a user gets it: packed, installed into a fresh project and loaded by Pi's own loader, then
 * `expect` checked and the smoke playbook run (in a `pi` process with `smoke.process`). A failed check is a
 * 'failed' result; a step that cannot run throws a SandboxError.
 */
export function verifySandboxInstall(options: SandboxOptions): Promise<SandboxResult> {
  return verify(options, createTestSession)
}
