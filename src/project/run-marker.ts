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

/** What one scan of /proc finds of a run's processes. */
export interface MarkerScan {
  /** The live processes whose environment holds the marker, with their process group. */
  marked: { pid: number; group: number }[]
  /**
   * Live processes whose environment reads empty: one in the middle of an exec shows none until the new
   * program's is in place (a daemon's `nohup setsid sleep` execs three times), so it may carry the marker a
   * moment later. Also any process started without an environment.
   */
  unsure: number[]
}

/** The processes whose environment holds `marker`, and those that cannot be told yet. */
export function scanForMarker(marker: string): MarkerScan {
  const scan: MarkerScan = { marked: [], unsure: [] }
  if (!markerSearchWorks) return scan
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid === process.pid) continue
    const environ = environOf(pid)
    if (environ === undefined || (environ.length > 0 && !environ.includes(`${marker}=`))) continue
    const stat = statOf(pid)
    if (stat === undefined) continue
    if (environ.length > 0) scan.marked.push({ pid, group: stat.group })
    else if (stat.live && !stat.kernelThread) scan.unsure.push(pid)
  }
  return scan
}

/** False once the process is gone or a zombie (whose environment reads empty), or was never readable. */
export function carriesMarker(pid: number, marker: string): boolean {
  // The variable name holds 128 random bits: finding it anywhere is finding it.
  return environOf(pid)?.includes(`${marker}=`) ?? false
}

function environOf(pid: number): Buffer | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`)
  } catch {
    return undefined // ENOENT/ESRCH: gone; EACCES: another user's process, which this run cannot have started
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
 * after each round (a process may have forked before it died, or been in an exec when scanned). Returns the
 * pids still there at the end.
 */
export async function killMarkedProcesses(marker: string, withinMs: number, pollMs: number, kill: Kill = process.kill): Promise<number[]> {
  const deadline = performance.now() + withinMs
  let unsureBefore = new Set<number>()
  for (;;) {
    const { marked, unsure } = scanForMarker(marker)
    const left = marked.map(({ pid }) => pid)
    // Empty on the scan before too: not an exec (which takes far less than a poll), a process without an environment.
    const inExec = unsure.filter((pid) => !unsureBefore.has(pid))
    unsureBefore = new Set(unsure)
    if ((left.length === 0 && inExec.length === 0) || performance.now() >= deadline) return left
    signalProcesses(left, 'SIGKILL', kill)
    await new Promise((done) => setTimeout(done, pollMs))
  }
}

// Linux's PF_KTHREAD in /proc/<pid>/stat's flags: a kernel thread, whose environment always reads empty.
const PF_KTHREAD = 0x00200000

/** From /proc/<pid>/stat: whether it is alive (not a zombie), a kernel thread, and its process group. */
function statOf(pid: number): { live: boolean; kernelThread: boolean; group: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // After the parenthesised command name (which may hold spaces): state, parent pid, process group, session,
    // tty, the tty's foreground group, then the flags.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { live: fields[0] !== 'Z' && fields[0] !== 'X', kernelThread: (Number(fields[6]) & PF_KTHREAD) !== 0, group: Number(fields[2]) }
  } catch {
    return undefined
  }
}
