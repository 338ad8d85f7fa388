// What the suite knows of how Pi's lines and releases differ, so that each test states one expectation
// for all of them. Each is read from the running Pi (or the harness's adapter for it), never its version.
import { AgentSession } from '@mariozechner/pi-coding-agent'
import { BUILTIN_TOOL_NAMES, execResult, PI_LINE } from '../../src/pi/index.js'

/** True on Pi 1.x (`@earendil-works`), false on 0.73 (`@mariozechner`). */
export const CURRENT_LINE = PI_LINE.scope === '@earendil-works'

type ExecFields = { stdout: string; stderr: string; code: number; killed: boolean }

/**
 * A `pi.exec` result as the running Pi resolves it (since 1.5 it adds whether the output was cut), in the
 * harness's shape: io-mocks.test.ts holds that shape against Pi's own exec.
 */
export function execResultOf(result: ExecFields): ExecFields & { truncated?: boolean } {
  return execResult(result)
}

/** The code Pi gives a process its timeout or abort signal killed: `code ?? 0` until 1.5, 128 + SIGTERM since 1.6. */
export const KILLED_CODE = execResult({ stdout: '', stderr: '', code: undefined, killed: true }).code

/** The last event of a run: Pi settles (retries, compaction) after `agent_end` since 0.80, and says so. */
export const LAST_RUN_EVENT = '_emitAgentSettled' in AgentSession.prototype ? 'agent_settled' : 'agent_end'

/** The running Pi's PowerShell tool (since 0.84) in a list of tool names, as the harness prints it. */
export const POWERSHELL = BUILTIN_TOOL_NAMES.includes('powershell') ? 'powershell, ' : ''
