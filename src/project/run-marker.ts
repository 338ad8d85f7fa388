// The processes of one run, found by a variable in their environment: what leaves the run's process group
// (`setsid`, a daemon's double fork) keeps the environment it was started with, and Linux shows it in /proc.
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'

/** Every run's marker variable starts with this; the rest is random, so nested runs each add their own. */
export const RUN_MARKER_PREFIX = 'VITEST_PI_RUN_'

type Kill = (pid: number, signal: NodeJS.Signals) => void

/** A marker no other run shares: the name of a variable set to 1 in the run's environment. */
export function newRunMarker(): string {
  return RUN_MARKER_PREFIX + randomBytes(16).toString('hex')
}

/** Whether processes can be found by their environment here; elsewhere every search finds nothing. */
export const markerSearchWorks = process.platform === 'linux' && existsSync('/proc/self/environ')

/** Pids of the live processes whose environment holds `marker`, with their process group. */
export function findMarkedProcesses(marker: string): { pid: number; group: number }[] {
  if (!markerSearchWorks) return []
  const found: { pid: number; group: number }[] = []
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid === process.pid || !carriesMarker(pid, marker)) continue
    const group = processGroup(pid)
    if (group !== undefined) found.push({ pid, group })
  }
  return found
}

/** False once the process is gone or a zombie (whose environment reads empty), or was never readable. */
export function carriesMarker(pid: number, marker: string): boolean {
  try {
    // The variable name holds 128 random bits: finding it anywhere is finding it.
    return readFileSync(`/proc/${pid}/environ`).includes(`${marker}=`)
  } catch {
    return false // ENOENT/ESRCH: gone; EACCES: another user's process, which this run cannot have started
  }
}

/** Sends `signal` to each pid, skipping those already gone (ESRCH) or not ours to signal (EPERM: left in the result). */
export function signalProcesses(pids: readonly number[], signal: NodeJS.Signals, kill: Kill = process.kill): void {
  for (const pid of pids) {
    try {
      kill(pid, signal)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'ESRCH' && code !== 'EPERM') throw error
    }
  }
}

/**
 * SIGKILLs the processes that carry `marker` until none is left or `withinMs` has passed, scanning again
 * after each round (a process may have forked before it died). Returns the pids still there at the end.
 */
export async function killMarkedProcesses(marker: string, withinMs: number, pollMs: number, kill: Kill = process.kill): Promise<number[]> {
  const deadline = performance.now() + withinMs
  for (;;) {
    const left = findMarkedProcesses(marker).map(({ pid }) => pid)
    if (left.length === 0 || performance.now() >= deadline) return left
    signalProcesses(left, 'SIGKILL', kill)
    await new Promise((done) => setTimeout(done, pollMs))
  }
}

function processGroup(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // After the parenthesised command name (which may hold spaces): state, parent pid, process group.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
  } catch {
    return undefined
  }
}
