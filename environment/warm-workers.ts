// Test files' workers started ahead. Under Vitest's default isolation each test file gets a new worker process
// that imports the harness and Pi before its first test: most of a small file's time. The forks pool here
// starts the worker of a later `pi` file while earlier ones run, with the file's isolation entered and Pi
// imported (warm-entry.ts), and hands it to that file when Vitest asks for its worker. Each file still has a
// process of its own, started for it alone; only when it starts changes. The run's reporter says how many
// files each project has left, so that no worker is started that no file will take.
import { fork, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { ForksPoolWorker, type PoolOptions, type PoolRunnerInitializer, type PoolWorker, type Reporter, type TestProject } from 'vitest/node'
import { adoptProcess, canAdoptProcess, renameWorker } from './vitest-internals.js'

/** The pool's name, Vitest's `forks` with workers started ahead (what `pool` reads in a resolved config). */
export const WARM_POOL = 'forks-warm-pi'

interface Spare {
  child: ChildProcess
  project: TestProject
  env: PoolOptions['env']
  execArgv: string[]
}

export interface WarmWorkers {
  /** Vitest's `pool` option. */
  pool: PoolRunnerInitializer
  /** Counts each run's files per project. */
  reporter: Reporter
  /** Stops the workers no file took; a run's end and Vitest's close call it. */
  stopSpares(): Promise<void>
}

const ignore = () => {}

// How long a worker no file took has to exit once disconnected before it is killed.
const EXIT_GRACE_MS = 5_000

/** `entry`: the warm worker's entry module (warm-entry.js). */
export function warmWorkers(entry: string): WarmWorkers {
  const spares: Spare[] = []
  // Per project, the files of the current run that have not asked for a worker yet.
  const filesLeft = new Map<TestProject, number>()

  const warms = (options: PoolOptions) =>
    options.environment.name === 'pi' && options.project.config.isolate && !options.project.config.inspector?.enabled && !options.execArgv.some((arg) => arg.startsWith('--inspect'))

  const alive = (child: ChildProcess) => child.connected && child.exitCode === null && child.signalCode === null

  function take(options: PoolOptions): ChildProcess | undefined {
    // One that exited before a file took it (it failed to start) gives way to a new one.
    for (let at = spares.length - 1; at >= 0; at--) if (!alive(spares[at]!.child)) spares.splice(at, 1)
    const at = spares.findIndex((spare) => spare.project === options.project && spare.env === options.env && spare.execArgv === options.execArgv)
    if (at < 0) return undefined
    const { child } = spares.splice(at, 1)[0]!
    child.off('error', ignore)
    return child
  }

  function startSpare(options: PoolOptions): void {
    const vitestEntry = resolve(options.distPath, 'workers/forks.js')
    // As Vitest's forks pool starts its workers, with our entry in front of its own.
    const child = fork(entry, [vitestEntry], { env: options.env, execArgv: options.execArgv, stdio: 'pipe', serialization: 'advanced' })
    // Its output waits in the pipe for the file that takes it; a failure to start shows as its exit.
    child.on('error', ignore)
    spares.push({ child, project: options.project, env: options.env, execArgv: options.execArgv })
  }

  async function stopSpare(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    // Disconnected, it exits by itself and its exit hooks remove its temp dirs; killing it would leave them.
    if (child.connected) child.disconnect()
    else child.kill('SIGKILL')
    const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS)
    await exited
    clearTimeout(timer)
  }

  const stopSpares = async () => {
    await Promise.all(spares.splice(0).map((spare) => stopSpare(spare.child)))
  }

  const pool: PoolRunnerInitializer = {
    name: WARM_POOL,
    createPoolWorker(options: PoolOptions): PoolWorker {
      const worker = renameWorker(new ForksPoolWorker(options), WARM_POOL)
      const warm = warms(options) && canAdoptProcess(worker)
      const start = worker.start.bind(worker)
      worker.start = async () => {
        const left = filesLeft.get(options.project)
        if (left !== undefined) filesLeft.set(options.project, Math.max(0, left - 1))
        const spare = warm ? take(options) : undefined
        if (spare !== undefined) adoptProcess(worker, spare)
        await start()
        const waiting = spares.filter((other) => other.project === options.project).length
        if (warm && (filesLeft.get(options.project) ?? 0) > waiting) startSpare(options)
      }
      return worker
    },
  }

  const reporter: Reporter = {
    onTestRunStart(specifications) {
      filesLeft.clear()
      for (const { project } of specifications) filesLeft.set(project, (filesLeft.get(project) ?? 0) + 1)
    },
    async onTestRunEnd() {
      filesLeft.clear()
      await stopSpares()
    },
  }

  return { pool, reporter, stopSpares }
}
