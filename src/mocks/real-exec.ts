// `unhandled: 'bypass'` runs a command for real as Pi's pi.exec does (no shell, the session's cwd, its
// timeout and abort signal, the same result), but in a process group of its own, as the project runner
// does: the session's end then kills the command and whatever it started, instead of leaving them running.
import { spawn, type ChildProcess } from 'node:child_process'
import { execResult } from '../pi/index.js'
import type { ExecOptions, PiExecResult } from './exec.js'

/** How long a command has after SIGTERM (its timeout, its abort signal, the session's end) before SIGKILL. */
const KILL_GRACE_MS = 1000

export interface RealExec {
  exec(command: string, args: string[], options?: ExecOptions): Promise<PiExecResult>
  /** Kills every command still running, with what it started; resolves once they are gone. */
  killAll(): Promise<void>
}

export function createRealExec(cwd: () => string): RealExec {
  const running = new Map<ChildProcess, Promise<unknown>>()
  // Every group started: a command that exited may have left processes in it.
  const groups = new Set<ChildProcess>()

  function exec(command: string, args: string[], options: ExecOptions = {}): Promise<PiExecResult> {
    const child = spawn(command, args, { cwd: options.cwd ?? cwd(), shell: false, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' })
    let stdout = ''
    let stderr = ''
    let killed = false
    const kill = () => {
      if (killed) return
      killed = true
      stopGroup(child)
    }
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = options.timeout && options.timeout > 0 ? setTimeout(kill, options.timeout) : undefined
    if (options.signal?.aborted) kill()
    options.signal?.addEventListener('abort', kill, { once: true })
    const done = new Promise<PiExecResult>((resolve) => {
      const finish = (code: number | undefined) => {
        clearTimeout(timer)
        options.signal?.removeEventListener('abort', kill)
        running.delete(child)
        resolve(execResult({ stdout, stderr, code, killed }))
      }
      // Pi resolves a spawn failure (ENOENT, a missing cwd) with code 1 and never rejects.
      child.once('error', () => finish(1))
      child.once('exit', (code) => finish(code ?? undefined))
    })
    running.set(child, done)
    groups.add(child)
    return done
  }

  return {
    exec,
    async killAll() {
      const left = [...running]
      for (const [child] of left) stopGroup(child)
      for (const child of groups) if (!running.has(child)) signalGroup(child, 'SIGKILL')
      groups.clear()
      await Promise.all(left.map(([, done]) => done))
    },
  }
}

/** SIGTERM to the command's group, SIGKILL to what is left of it after the grace period. */
function stopGroup(child: ChildProcess): void {
  signalGroup(child, 'SIGTERM')
  const force = setTimeout(() => signalGroup(child, 'SIGKILL'), KILL_GRACE_MS)
  force.unref()
  child.once('exit', () => {
    clearTimeout(force)
    // The command is gone; what it started in its group goes with it.
    signalGroup(child, 'SIGKILL')
  })
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    // Windows has no process groups; the command itself is all that can be reached there.
    if (process.platform === 'win32') child.kill(signal)
    else process.kill(-child.pid, signal)
  } catch {
    // ESRCH: the group is gone already.
  }
}
