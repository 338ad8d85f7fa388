import type { ChildProcess, StdioOptions } from 'node:child_process'
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { x } from 'tinyexec'
import { OutputTail } from './output-tail.js'
import { carriesMarker, killMarkedProcesses, newRunMarker, scanForMarker, signalProcesses } from './run-marker.js'
import { within } from '../shared/within.js'

export const PROJECT_SCRIPTS = ['test', 'build', 'format:check', 'lint', 'typecheck'] as const
export type ProjectScript = (typeof PROJECT_SCRIPTS)[number]
export type RunStatus = 'passed' | 'failed' | 'timed-out' | 'cancelled'

export const DEFAULT_TIMEOUT_MS = 120_000
export const MIN_TIMEOUT_MS = 100
export const MAX_TIMEOUT_MS = 600_000
/** How long the pipes may stay open after the leader exits before leftovers are killed. */
export const DRAIN_MS = 500
/** Grace between SIGTERM and SIGKILL to the process group. */
export const KILL_GRACE_MS = 1_000
const GROUP_POLL_MS = 50
// Lets the last bytes written before a kill reach the tail without waiting on a stranger holding the pipes.
const PIPE_FLUSH_MS = 200

export interface BoundedRunOptions {
  command: string
  args?: readonly string[]
  cwd?: string
  /** Integer from 100 to 600000; defaults to 120000. */
  timeoutMs?: number
  signal?: AbortSignal
  /** Merged over process.env; a key set to undefined removes that variable. */
  env?: NodeJS.ProcessEnv
}

export interface BoundedRunResult {
  status: RunStatus
  exitCode: number | null
  signal: string | null
  durationMs: number
  cwd: string
  /** Last 12 KiB of stdout and stderr in arrival order, decoded and sanitized. */
  outputTail: string
  outputBytes: number
  /** Processes of the run still alive after SIGKILL (found on Linux only); empty when everything ended. */
  strayPids: number[]
}

export interface ProjectScriptOptions {
  script?: ProjectScript
  cwd?: string
  timeoutMs?: number
  signal?: AbortSignal
  /** Wrapper argv that runs npm, e.g. ['sfw', 'npm']; `run <script>` is appended. */
  npmCommand?: readonly string[]
  env?: NodeJS.ProcessEnv
}

export type ProjectScriptResult = BoundedRunResult & { script: ProjectScript }

let activeScript: { script: ProjectScript; cwd: string } | undefined

export function validateTimeoutMs(timeoutMs: unknown = DEFAULT_TIMEOUT_MS): number {
  if (typeof timeoutMs === 'number' && Number.isInteger(timeoutMs) && timeoutMs >= MIN_TIMEOUT_MS && timeoutMs <= MAX_TIMEOUT_MS) {
    return timeoutMs
  }
  const shown = typeof timeoutMs === 'string' ? JSON.stringify(timeoutMs) : String(timeoutMs)
  throw new RangeError(`timeoutMs must be an integer from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}, got ${shown}`)
}

/** Runs one allowed npm script of the project in `cwd`, one at a time per process. */
export async function runProjectScript(options: ProjectScriptOptions = {}): Promise<ProjectScriptResult> {
  const script = options.script ?? 'test'
  if (!(PROJECT_SCRIPTS as readonly unknown[]).includes(script)) {
    throw new TypeError(`script must be one of ${PROJECT_SCRIPTS.join(', ')}; got ${JSON.stringify(script)}`)
  }
  validateTimeoutMs(options.timeoutMs)
  const cwd = resolve(options.cwd ?? process.cwd())
  if (activeScript) {
    throw new Error(`a project script is already running: ${activeScript.script} in ${activeScript.cwd}`)
  }
  const [command, ...prefixArgs] = resolveNpmCommand(options.npmCommand)
  activeScript = { script, cwd }
  try {
    const { timeoutMs, signal, env } = options
    const result = await runBounded({ command: command!, args: [...prefixArgs, 'run', script], cwd, timeoutMs, signal, env })
    return { ...result, script }
  } finally {
    activeScript = undefined
  }
}

/** The argv that runs npm: `npmCommand` as given (checked), else the npm that launched us, else `npm`. */
export function resolveNpmCommand(npmCommand: readonly string[] | undefined): string[] {
  if (npmCommand !== undefined) {
    if (!Array.isArray(npmCommand) || npmCommand.length === 0 || !npmCommand.every((part) => typeof part === 'string' && part !== '')) {
      throw new TypeError('npmCommand must be a non-empty array of non-empty strings')
    }
    return [...npmCommand]
  }
  const npmCli = process.env.npm_execpath
  // Reusing the npm that launched us avoids a PATH lookup and a shell shim.
  if (npmCli && /\.c?js$/.test(npmCli) && statSync(npmCli, { throwIfNoEntry: false })?.isFile()) {
    return [process.execPath, npmCli]
  }
  return ['npm']
}

/**
 * Runs `command` as the leader of its own process group with a hard time
 * limit, keeping only a bounded tail of its output, and leaves no process of
 * the run behind. A missing cwd or a spawn failure (e.g. ENOENT) rejects.
 *
 * On Linux the run's environment carries a marker variable, and when the run
 * ends (exit, timeout or abort) every process whose /proc/<pid>/environ holds
 * it is ended with the group, so processes that left the group (`setsid`, a
 * daemon's double fork) end too. Out of reach: a process started with an
 * environment that drops the marker (`env -i`, a spawn with its own `env`) and
 * has left the group; another user's process (a setuid program); a process
 * that a service (dockerd, systemd) starts on the run's request. On macOS and
 * Windows there is no /proc: only the group (Windows: only the leader) ends.
 */
export async function runBounded(options: BoundedRunOptions): Promise<BoundedRunResult> {
  const timeoutMs = validateTimeoutMs(options.timeoutMs)
  const cwd = resolve(options.cwd ?? process.cwd())
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`cwd is not a directory: ${cwd}`)
  const { signal } = options
  // An already-aborted signal spawns nothing: the caller no longer wants the run.
  if (signal?.aborted) {
    return { status: 'cancelled', exitCode: null, signal: null, durationMs: 0, cwd, outputTail: '', outputBytes: 0, strayPids: [] }
  }

  const startedAt = performance.now()
  const { child, end } = startProcessGroup({ command: options.command, args: options.args, cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] })
  const pipes = [child.stdout, child.stderr] as Readable[]

  const tail = new OutputTail()
  const pipesClosed = Promise.all(
    pipes.map((pipe) => {
      pipe.on('data', (chunk: Buffer) => tail.push(chunk))
      return new Promise((done) => pipe.once('close', done))
    }),
  )
  const leaderExit = new Promise<{ exitCode: number | null; signal: string | null }>((done, fail) => {
    child.once('exit', (exitCode, exitSignal) => done({ exitCode, signal: exitSignal }))
    child.once('error', fail)
  })

  let stopTimer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const stopRequested = new Promise<'timed-out' | 'cancelled'>((done) => {
    stopTimer = setTimeout(() => done('timed-out'), timeoutMs)
    onAbort = () => done('cancelled')
    signal?.addEventListener('abort', onAbort, { once: true })
  })

  try {
    const first = await Promise.race([leaderExit, stopRequested])
    let status: RunStatus
    if (typeof first === 'string') {
      status = first
    } else {
      status = first.exitCode === 0 ? 'passed' : 'failed'
      clearTimeout(stopTimer)
      // Descendants that outlive the leader must not keep the call waiting, nor keep running.
      await within(pipesClosed, DRAIN_MS)
    }
    const strayPids = await end()
    await within(pipesClosed, PIPE_FLUSH_MS)
    for (const pipe of pipes) pipe.destroy()
    const exit = await leaderExit
    return {
      status,
      ...exit,
      durationMs: Math.round(performance.now() - startedAt),
      cwd,
      outputTail: tail.text(),
      outputBytes: tail.totalBytes,
      strayPids,
    }
  } finally {
    clearTimeout(stopTimer)
    if (onAbort) signal?.removeEventListener('abort', onAbort)
    for (const pipe of pipes) pipe.destroy()
  }
}

export interface ProcessGroupOptions {
  command: string
  args?: readonly string[] | undefined
  cwd: string
  /** Merged over process.env; a key set to undefined removes that variable. */
  env?: NodeJS.ProcessEnv | undefined
  stdio: StdioOptions
}

export interface ProcessGroup {
  child: ChildProcess
  /** Ends the whole run (group and marked processes), as runBounded does; returns the pids that survived. */
  end(): Promise<number[]>
  /** SIGKILL to the group at once, for a process that is exiting and cannot wait (no marker search). */
  killNow(): void
}

/**
 * Starts `command` as the leader of its own process group, its environment marked so that `end()` finds
 * what left the group too. The caller reads its pipes and decides when the run ends.
 */
export function startProcessGroup(options: ProcessGroupOptions): ProcessGroup {
  const marker = newRunMarker()
  // tinyexec only buffers when awaited or iterated; we read its child's streams ourselves and never await it.
  // Its own timeout/signal options are not used: they would signal the leader only, not the group.
  const child = x(options.command, options.args ?? [], {
    throwOnError: false,
    // Resolve the command from the caller's PATH only, not from node_modules/.bin under cwd.
    nodePath: false,
    nodeOptions: { cwd: options.cwd, env: { ...options.env, [marker]: '1' }, detached: true, stdio: options.stdio },
  }).process as ChildProcess
  return {
    child,
    end: () => terminateRun(child, marker),
    killNow: () => void signalGroup(child, 'SIGKILL'),
  }
}

/**
 * SIGTERM to the whole group and to the run's processes outside it, SIGKILL to whatever is left of
 * them after the grace period, then SIGKILL to anything still marked; returns the pids that survived.
 */
async function terminateRun(child: ChildProcess, marker: string): Promise<number[]> {
  const groupAlive = signalGroup(child, 'SIGTERM')
  const scan = scanForMarker(marker)
  const outside = scan.marked.filter(({ group }) => group !== child.pid).map(({ pid }) => pid)
  signalProcesses(outside, 'SIGTERM')
  const anyLeft = () => signalGroup(child, 0) || outside.some((pid) => carriesMarker(pid, marker))
  // Nothing marked, none that could be in an exec, and no group: nothing of the run is left that could start another process.
  if (!groupAlive && outside.length === 0 && scan.unsure.length === 0) return []
  for (let waited = 0; waited < KILL_GRACE_MS && anyLeft(); waited += GROUP_POLL_MS) await sleep(GROUP_POLL_MS)
  signalGroup(child, 'SIGKILL')
  // Also confirms that nothing started during the grace period survives.
  return killMarkedProcesses(marker, KILL_GRACE_MS, GROUP_POLL_MS)
}

/** Returns false when there is nothing (left) to signal. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  if (child.pid === undefined) return false
  try {
    // Windows has no process groups; the leader is all we can reach there.
    if (process.platform === 'win32') return child.kill(signal)
    process.kill(-child.pid, signal)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // ESRCH: the group is gone. EPERM: macOS reports it for a group of zombies; nothing we may signal remains.
    if (code === 'ESRCH' || code === 'EPERM') return false
    throw error
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms))
}
