// Workers started ahead (pi()'s default under the forks pool), packed and installed as a user gets them: a file
// after the first runs in a process that imported Pi while the file before it ran, and still has a process, a
// home and sessions of its own; nothing is left when the run ends; the ways out are Vitest's own pool.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { failuresByTitle, installConsumer, type Consumer } from './support/consumer.js'

let consumer: Consumer
beforeAll(async () => {
  consumer = await installConsumer('test/consumer-warm')
}, 300_000)
afterAll(() => consumer?.remove())

const RUN = 120_000
const FILES = ['a', 'b', 'c']

interface FileMark {
  pid: number
  home: string
  sessionHome: string
  startedAt: number
  warmReadyAt: number | null
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Runs the fixture with its own temp dir; returns its report, each file's marks and what the run left in that dir. */
async function runFixture(args: string[], env: NodeJS.ProcessEnv = {}) {
  const marks = join(consumer.dir, '.marks')
  rmSync(marks, { recursive: true, force: true })
  const tmp = mkdtempSync(join(consumer.dir, '..', 'tmp-'))
  try {
    const { result, report } = await consumer.vitest(args, { TMPDIR: tmp, ...env })
    // Vitest closed at once (a worker still running would hold it until its teardown timeout).
    expect(result.outputTail).not.toContain('close timed out')
    const files = Object.fromEntries(
      FILES.filter((name) => existsSync(join(marks, `${name}.json`))).map((name) => [name, JSON.parse(readFileSync(join(marks, `${name}.json`), 'utf8')) as FileMark]),
    )
    return { report, files, left: readdirSync(tmp) }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

async function runAll(args: string[]) {
  const run = await runFixture(args)
  expect(failuresByTitle(run.report)).toEqual({})
  expect(Object.keys(run.files)).toEqual(FILES)
  return run
}

describe('pi(): each file after the first gets a worker started ahead', () => {
  it('runs it in a process that had imported Pi before the file started, its own process and home', async () => {
    const { files, left } = await runAll([])
    // The first file's worker is started when it is needed; the next ones while the file before runs.
    expect(files.a!.warmReadyAt).toBeNull()
    for (const name of ['b', 'c']) {
      expect(files[name]!.warmReadyAt, name).not.toBeNull()
      expect(files[name]!.warmReadyAt!, name).toBeLessThanOrEqual(files[name]!.startedAt)
    }
    // Default isolation as before: a process and a home for each file, and each session a home of its own.
    expect(new Set(FILES.map((name) => files[name]!.pid)).size).toBe(3)
    expect(new Set(FILES.map((name) => files[name]!.home)).size).toBe(3)
    for (const name of FILES) expect(files[name]!.sessionHome).not.toBe(files[name]!.home)
    // Every worker has exited, and removed its temp dirs.
    for (const name of FILES) expect(alive(files[name]!.pid), name).toBe(false)
    expect(left).toEqual([])
  }, RUN)

  it('stops a worker no file took (the run bailed out) and leaves nothing behind', async () => {
    const { report, left } = await runFixture(['--bail=1'], { FAIL_FILE: 'a' })
    expect(report.numFailedTests).toBe(1)
    expect(left).toEqual([])
  }, RUN)
})

describe('the ways to the workers Vitest starts itself', () => {
  for (const [how, args] of [
    ['pi({ warmWorkers: false })', ['--mode=cold']],
    ['a pool named in the config (threads)', ['--mode=threads']],
    ['a pool named in the config (forks)', ['--mode=forks']],
    ['a pool named on the command line (--pool=forks)', ['--pool=forks']],
  ] as const) {
    it(how, async () => {
      const { files, left } = await runAll([...args])
      for (const name of FILES) expect(files[name]!.warmReadyAt, name).toBeNull()
      expect(left).toEqual([])
    }, RUN)
  }

  it('isolate: false: one worker runs every file, none started ahead', async () => {
    const { files, left } = await runAll(['--no-isolate'])
    expect(new Set(FILES.map((name) => files[name]!.pid)).size).toBe(1)
    for (const name of FILES) expect(files[name]!.warmReadyAt, name).toBeNull()
    expect(left).toEqual([])
  }, RUN)
})
