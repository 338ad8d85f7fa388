// What the suite knows of how Pi's lines differ, so that each test states one expectation for both.
import { PI_LINE } from '../../src/pi/index.js'

/** True on Pi 1.x (`@earendil-works`), false on 0.73 (`@mariozechner`). */
export const CURRENT_LINE = PI_LINE.scope === '@earendil-works'

type ExecFields = { stdout: string; stderr: string; code: number; killed: boolean }

/** A `pi.exec` result as the running line resolves it: 1.x adds whether the output was cut. */
export function execResultOf(result: ExecFields): ExecFields & { truncated?: boolean } {
  return CURRENT_LINE ? { ...result, truncated: false } : result
}

/** The code Pi gives a process its timeout or abort signal killed: 0.73 `code ?? 0`, 1.x 128 + SIGTERM. */
export const KILLED_CODE = CURRENT_LINE ? 143 : 0

/** The last event of a run: 1.x settles (retries, compaction) after `agent_end`. */
export const LAST_RUN_EVENT = CURRENT_LINE ? 'agent_settled' : 'agent_end'
