// What a user asks of the installed package beyond loading: the counts in `expect`, and a smoke playbook
// run against the installed copy. Each returns its problems as sentences; the sandbox prefixes the step.
import type { MockToolHandler } from '../mocks/tools.js'
import type { MockUIOptions } from '../mocks/ui.js'
import type { ProcessOptions } from '../session/options.js'
import type { Turn } from '../model/script.js'
import { piModuleLoader, type LoadedPackage } from '../pi/load-package.js'
import { SessionRecords } from '../records/records.js'
import { createTestSession as createInProcess, type TestSession, type TestSessionOptions } from '../session/create.js'
import { messageOf } from '../shared/errors.js'

export interface SandboxExpect {
  /** How many extension files Pi loads from the package. */
  extensions?: number
  /** Every tool the package registers: a missing one and an unlisted one both fail. */
  tools?: string[]
  /** How many skills Pi finds in the package. */
  skills?: number
}

export interface SandboxSmoke {
  /** As createTestSession's mockTools; the package's own tools normally run for real. */
  mockTools?: Record<string, MockToolHandler>
  mockUI?: MockUIOptions | false
  /** The playbook, run against the installed copy. */
  script: Turn[]
  /**
   * Runs the smoke in the real `pi` CLI (RPC mode) instead of in process: the installed copy listed in the
   * session's settings, loaded through its `pi` manifest as after `pi install` (docs/process-depth.md).
   * `true`, or the process options other than `packages` (the installed copy is the package).
   */
  process?: boolean | Omit<ProcessOptions, 'packages'>
}

/** Where what Pi loaded differs from what `expected` names. */
export function expectationProblems(expected: SandboxExpect, loaded: LoadedPackage): string[] {
  const problems: string[] = []
  const list = (items: string[]) => (items.length ? items.join(', ') : 'none')
  if (expected.extensions !== undefined && loaded.extensions.length !== expected.extensions) {
    problems.push(`expected ${expected.extensions} extension(s), Pi loaded ${loaded.extensions.length}: ${list(loaded.extensions)}`)
  }
  if (expected.tools !== undefined) {
    const missing = expected.tools.filter((tool) => !loaded.tools.includes(tool))
    const unlisted = loaded.tools.filter((tool) => !expected.tools!.includes(tool))
    if (missing.length) problems.push(`expected tool(s) not registered: ${missing.join(', ')} (registered: ${list(loaded.tools)})`)
    if (unlisted.length) problems.push(`registered tool(s) that expect.tools does not list: ${unlisted.join(', ')} (list every tool the package ships)`)
  }
  if (expected.skills !== undefined && loaded.skills.length !== expected.skills) {
    problems.push(`expected ${expected.skills} skill(s), Pi found ${loaded.skills.length}: ${list(loaded.skills)}`)
  }
  return problems
}

/**
 * Starts the smoke's session at either depth. The process depth sits above this stage (it uses the runner),
 * so the caller above both hands it in: src/index.ts and the environment's global setup.
 */
export type SmokeSessionStarter = (options: TestSessionOptions) => Promise<TestSession>

/** Without a starter from above: in process only; a smoke that asks for the process depth says so. */
export const inProcessSmoke: SmokeSessionStarter = (options) => {
  if (options.process) throw new Error('smoke.process: this entry point runs the smoke in process only; call verifySandboxInstall from vitest-environment-pi')
  return createInProcess(options)
}

/** The playbook against the installed extensions, loaded as Pi loads them; what went wrong goes to `problems`. */
export async function runSmoke(
  smoke: SandboxSmoke,
  extensionFiles: string[],
  installedDir: string,
  problems: string[],
  createTestSession: SmokeSessionStarter = inProcessSmoke,
): Promise<{ events: SessionRecords }> {
  const { mockTools, mockUI, script, process } = smoke
  const records = new SessionRecords()
  // In a pi process the package is what Pi's settings list, as `pi install` leaves it; in process, its files.
  const loading = process
    ? { process: { ...(typeof process === 'object' ? process : {}), packages: [installedDir] } }
    : { extensions: extensionFiles, importModule: piModuleLoader() }
  let t: TestSession
  try {
    t = await createTestSession({
      ...loading,
      root: installedDir,
      ...(mockTools ? { mockTools } : {}),
      ...(mockUI === undefined ? {} : { mockUI }),
    })
  } catch (error) {
    problems.push(`the session did not start: ${messageOf(error)}`)
    return { events: records }
  }
  try {
    await t.run(...script)
    // A smoke passes when the tools worked, not merely when the playbook was followed.
    for (const result of t.events.toolResults.filter((r) => r.isError)) {
      problems.push(`tool ${result.toolName} returned an error at playbook step ${result.step}: ${result.text}`)
    }
  } catch (error) {
    problems.push(messageOf(error))
  } finally {
    await t.dispose()
  }
  return { events: t.events }
}
