// Processes that leave the run's process group (setsid, a daemon's double fork) end with the run too:
// on Linux the runner marks the run's environment and sweeps /proc for the marker when the run ends.
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { killMarkedProcesses, newRunMarker } from '../../src/project/run-marker.js'
import { runProjectScript, type RunStatus } from '../../src/project/runner.js'
import { createFixtureProject, isProcessRunning, quietNpmEnv, readPid, removeFixtureProjects } from './fixture-project.js'

// Every process of a test's run inherits this tag from the run's env: the test's own way to find them,
// independent of the runner's marker.
let tag = ''

beforeEach(() => {
  tag = `RUNNER_TEST_${randomUUID().replaceAll('-', '_')}`
})

afterEach(async () => {
  // Whatever the outcome, nothing a test started outlives it.
  for (const pid of processesWith(tag)) process.kill(pid, 'SIGKILL')
  await removeFixtureProjects()
})

/** Pids of running processes whose environment holds `variable` (read from /proc, as a user could). */
function processesWith(variable: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    let environ: string
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'latin1')
    } catch {
      continue // gone, or not ours
    }
    if (environ.split('\0').some((line) => line.startsWith(`${variable}=`)) && isProcessRunning(Number(entry))) {
      found.push(Number(entry))
    }
  }
  return found
}

/** The runner's marker, as the fixture saw it in its environment (a variable our own process lacks). */
function runMarker(cwd: string): string {
  const names = readFileSync(join(cwd, 'env.txt'), 'utf8')
    .split('\n')
    .map((line) => line.slice(0, line.indexOf('=')))
    .filter((name) => name.startsWith('VITEST_PI_RUN_') && !(name in process.env))
  expect(names).toHaveLength(1)
  return names[0]!
}

/** Nothing the run started is alive (by the test's tag, the stray's pid, the runner's marker), and the status stands. */
function expectNothingLeft(cwd: string, result: { status: RunStatus; strayPids: number[] }, status: RunStatus): void {
  expect(processesWith(tag)).toEqual([])
  expect(isProcessRunning(readPid(cwd, 'stray.pid'))).toBe(false)
  expect(processesWith(runMarker(cwd))).toEqual([])
  expect(result).toMatchObject({ status, strayPids: [] })
}

// Each script leaves a process outside the group and writes its pid to stray.pid, and its env to env.txt.
const SETSID_SLEEP = 'env > env.txt; setsid sleep 1000 & echo $! > stray.pid'
const DAEMON_DOUBLE_FORK = 'env > env.txt; (nohup setsid sleep 1000 > /dev/null 2>&1 & echo $! > stray.pid); exit 0'
// Runs in place of npm (it ignores the `run test` appended), so a bounded run starts at once: leaves a stray, then waits.
const SH_HOLDING = ['sh', '-c', `${SETSID_SLEEP}; sleep 1000`]
const IGNORES_SIGTERM = `process.on('SIGTERM', () => {}); require('node:fs').writeFileSync('stray.pid', String(process.pid)); setInterval(() => {}, 1000)`

describe.runIf(process.platform === 'linux')('processes that left the process group', () => {
  it.each([
    ['setsid sleep 1000 &', SETSID_SLEEP],
    ['a double fork with nohup that exits', DAEMON_DOUBLE_FORK],
    ['a setsid process that ignores SIGTERM', 'env > env.txt; setsid node stray.js & while [ ! -s stray.pid ]; do sleep 0.05; done'],
  ])('are gone when the script ends: %s', async (_, script) => {
    const cwd = await createFixtureProject({ test: script }, { 'stray.js': IGNORES_SIGTERM })

    const result = await runProjectScript({ cwd, timeoutMs: 30_000, env: { ...quietNpmEnv, [tag]: '1' } })

    expectNothingLeft(cwd, result, 'passed')
  }, 20_000)

  it('are gone when the run times out', async () => {
    const cwd = await createFixtureProject({})

    const result = await runProjectScript({ cwd, npmCommand: SH_HOLDING, timeoutMs: 3_000, env: { [tag]: '1' } })

    expectNothingLeft(cwd, result, 'timed-out')
  }, 20_000)

  it('are gone when the run is cancelled', async () => {
    const cwd = await createFixtureProject({})
    const controller = new AbortController()

    const run = runProjectScript({ cwd, npmCommand: SH_HOLDING, timeoutMs: 60_000, signal: controller.signal, env: { [tag]: '1' } })
    await vi.waitFor(() => expect(existsSync(join(cwd, 'stray.pid'))).toBe(true), { timeout: 10_000 })
    controller.abort()
    const result = await run

    expectNothingLeft(cwd, result, 'cancelled')
  }, 20_000)

  it('gives up on a process that SIGKILL does not end after a bounded wait, and names it', async () => {
    const marker = newRunMarker()
    const sleeper = spawn('sleep', ['1000'], { env: { ...process.env, [marker]: '1', [tag]: '1' }, stdio: 'ignore' })
    await new Promise((spawned) => sleeper.once('spawn', spawned))
    const signalsSent: string[] = []

    // A kill that never lands stands in for a process that SIGKILL cannot end (uninterruptible sleep).
    const left = await killMarkedProcesses(marker, 200, 20, (_, signal) => void signalsSent.push(signal))

    expect(left).toEqual([sleeper.pid])
    expect(new Set(signalsSent)).toEqual(new Set(['SIGKILL']))
    expect(await killMarkedProcesses(marker, 1_000, 20)).toEqual([])
    expect(processesWith(tag)).toEqual([])
  })

  it('finds a process that shows no environment when first scanned, as one in the middle of an exec does', async () => {
    const marker = newRunMarker()
    // Started without an environment (what /proc shows of a process between two programs of an exec), it
    // takes the marker 300 ms later, as a daemon's `nohup setsid sleep` reaches its last program: its own
    // environment in /proc is what it started with, until it execs.
    const late = spawn('sh', ['-c', `sleep 0.3; export ${marker}=1 ${tag}=1; exec sleep 1000`], { env: {}, stdio: 'ignore' })
    await vi.waitFor(() => expect(readFileSync(`/proc/${late.pid}/environ`)).toHaveLength(0), { interval: 5 })

    expect(await killMarkedProcesses(marker, 5_000, 1_000)).toEqual([])

    await vi.waitFor(() => expect(isProcessRunning(late.pid!)).toBe(false))
    expect(processesWith(tag)).toEqual([])
  })

  it('waits no longer for a process that has no environment for good than one scan after it was first seen', async () => {
    const bare = spawn('sleep', ['1000'], { env: {}, stdio: 'ignore' })
    try {
      await vi.waitFor(() => expect(readFileSync(`/proc/${bare.pid}/environ`)).toHaveLength(0), { interval: 5 })
      // Bounded by a minute, it returns after its second scan: a test timeout, not a measurement, is the check.
      expect(await killMarkedProcesses(newRunMarker(), 60_000, 100)).toEqual([])
      expect(isProcessRunning(bare.pid!)).toBe(true)
    } finally {
      bare.kill('SIGKILL')
    }
  }, 10_000)
})
