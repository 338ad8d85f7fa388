// A Worker started while the guard is held gets the guard in its own thread, and a child process in any
// Node it runs. A worker thread can import
// only JavaScript, so this file tests the compiled guard, as installed packages run it (dist/, from
// `npm run build`). Each worker lays the floor (test/support/network-floor.mjs) before it tries anything,
// so a worker that lacked the guard would still send nothing.
import { exec, execFile, execSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import workerThreads, { Worker } from 'node:worker_threads'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { guardNetwork } from '../../dist/src/isolation/network-guard.js'

const PROBE = new URL('../support/network-worker-probe.mjs', import.meta.url)
const REFUSED = [
  'Network access is disabled in tests: 192.0.2.1:443',
  'Network access is disabled in tests: example.com:443',
  'Network access is disabled in tests: 192.0.2.1:53 (UDP)',
  'Network access is disabled in tests: example.com (DNS lookup)',
  'Network access is disabled in tests: example.com (DNS resolve4)',
]

interface ProbeReport {
  messages: string[]
  stopped: string[]
  execArgv: string[]
  nested?: ProbeReport
}

let releases: (() => void)[] = []

beforeAll(() => {
  const source = fileURLToPath(new URL('../../src/isolation/', import.meta.url))
  const built = fileURLToPath(new URL('../../dist/src/isolation/', import.meta.url))
  for (const file of readdirSync(source).filter((name) => name.startsWith('network-'))) {
    const js = file.replace(/\.ts$/, '.js')
    const stale = statSync(source + file).mtimeMs > (statSync(built + js, { throwIfNoEntry: false })?.mtimeMs ?? 0)
    if (stale) throw new Error(`dist/src/isolation/${js} is older than src/isolation/${file}: run npm run build`)
  }
})

afterEach(() => {
  for (const release of releases) release()
  releases = []
})

function probe(options: workerThreads.WorkerOptions = {}): Promise<ProbeReport> {
  return new Promise((resolve, reject) => new Worker(PROBE, options).once('message', resolve).once('error', reject))
}

it('guards a Worker started while held, and a Worker that one starts', async () => {
  releases.push(guardNetwork())
  const report = await probe()
  expect(report).toMatchObject({ messages: REFUSED, stopped: [], nested: { messages: REFUSED, stopped: [] } })
})

it('keeps the execArgv a Worker is given, the guard after them', async () => {
  releases.push(guardNetwork())
  const report = await probe({ execArgv: ['--no-deprecation'] })
  expect(report.execArgv).toEqual(['--no-deprecation', '--import', expect.stringMatching(/^data:text\/javascript,/)])
  expect(report).toMatchObject({ messages: REFUSED, stopped: [] })
})

it('drops the flags a worker refuses from the execArgv it would inherit, and still guards it', async () => {
  process.execArgv.push('--max-old-space-size=4096')
  try {
    releases.push(guardNetwork())
    const report = await probe()
    expect(report.execArgv).not.toContain('--max-old-space-size=4096')
    expect(report).toMatchObject({ messages: REFUSED, stopped: [] })
  } finally {
    process.execArgv.pop()
  }
})

it('leaves a Worker started after the last release alone', async () => {
  const found = workerThreads.Worker
  guardNetwork()()
  expect(workerThreads.Worker).toBe(found)
  const code = 'require("node:worker_threads").parentPort.postMessage(process.execArgv)'
  const execArgv = await new Promise((resolve) => new Worker(code, { eval: true }).once('message', resolve))
  expect(execArgv).not.toContain('--import')
})

// What a child or an eval worker runs: it lays the floor first, then connects beyond loopback and reports
// the error it got and what reached the floor. No quote marks, so a shell passes it as it is.
const FLOOR = new URL('../support/network-floor.mjs', import.meta.url).href
const connectAndReport = (report: string) =>
  `import(${JSON.stringify(FLOOR)}).then(async ({ layFloor }) => { const floor = await layFloor(); ` +
  `require(${JSON.stringify('node:net')}).connect(443, ${JSON.stringify('192.0.2.1')}).on(${JSON.stringify('error')}, (error) => ${report}({ message: error.message, stopped: floor.stopped })) })`
const CHILD = connectAndReport('((line) => console.log(JSON.stringify(line)))')
const GUARDED = { message: 'Network access is disabled in tests: 192.0.2.1:443', stopped: [] }
// The reported line; `node -p` also prints the code's value (a pending promise), before or after it by Node version.
const lastLine = (output: string | Buffer) => JSON.parse(String(output).split('\n').findLast((line) => line.startsWith('{'))!) as unknown

describe('an eval Worker, whose code Node starts without the --import preload unless it is an ES module', () => {
  const code = `const { parentPort } = require(${JSON.stringify('node:worker_threads')}); ${connectAndReport('((line) => parentPort.postMessage(line))')}`
  const evalWorker = (source: string) => new Promise((resolve, reject) => new Worker(source, { eval: true }).once('message', resolve).once('error', reject))

  it('is guarded: a CommonJS script, with and without a "use strict" directive', async () => {
    releases.push(guardNetwork())
    await expect(evalWorker(code)).resolves.toEqual(GUARDED)
    await expect(evalWorker(`'use strict'; ${code}`)).resolves.toEqual(GUARDED)
  })
})

describe('a child process, which gets the guard for any Node it runs', () => {
  it('guards node -e and node -p, sync and async', async () => {
    releases.push(guardNetwork())
    expect(lastLine(spawnSync(process.execPath, ['-e', CHILD]).stdout)).toEqual(GUARDED)
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['-p', CHILD], (error, stdout) => (error ? reject(error) : resolve(stdout))),
    )
    expect(lastLine(output)).toEqual(GUARDED)
  })

  it.each([
    ['its environment', ''],
    ['an environment of its own', ', env: { PATH: process.env.PATH, FAKE_PROGRAM_LOG: process.env.FAKE_PROGRAM_LOG }'],
  ])("reports to this process what a guarded child's own child with %s asks of the proxy, naming the child", (_, ownEnvironment) => {
    const blocked: string[] = []
    releases.push(guardNetwork((target) => blocked.push(target)))
    // A stand-in curl (test/support/fake-network-program.mjs) that asks the proxy and never connects beyond loopback.
    const bin = mkdtempSync(join(tmpdir(), 'pi-fake-curl-'))
    try {
      const fake = fileURLToPath(new URL('../support/fake-network-program.mjs', import.meta.url))
      writeFileSync(join(bin, 'curl'), `#!/bin/sh\nexec '${process.execPath}' '${fake}' curl "$@"\n`, { mode: 0o755 })
      const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, FAKE_PROGRAM_LOG: join(bin, 'calls.jsonl') }
      const script = `require("node:child_process").execSync("curl -sS https://example.com/", { stdio: "ignore"${ownEnvironment} })`
      spawnSync(process.execPath, ['-e', script], { env })
      expect(blocked).toEqual([expect.stringMatching(/^example\.com:443, asked of the proxy that child processes get by curl\/1\.0 in the child process `\S+ -e "require/)])
      expect(readFileSync(join(bin, 'calls.jsonl'), 'utf8')).toContain('"program":"curl"')
    } finally {
      rmSync(bin, { recursive: true, force: true })
    }
  })

  // A process that takes the guard itself (a guarded child would hand on this process's proxy) starts its own
  // proxy for its first child.
  it('guards node --input-type=module --eval, which starts children of its own', () => {
    const guard = new URL('../../dist/src/isolation/network-guard.js', import.meta.url).href
    const script = `import { execFileSync } from 'node:child_process'; import { guardNetwork } from ${JSON.stringify(guard)}; guardNetwork(); process.stdout.write(execFileSync(process.execPath, ['-e', ${JSON.stringify(CHILD)}]))`
    const child = spawnSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8' })
    expect(child.stderr).toBe('')
    expect(lastLine(child.stdout)).toEqual(GUARDED)
  })

  it('guards Node that a shell command runs, also with an environment of its own', async () => {
    releases.push(guardNetwork())
    const command = `${JSON.stringify(process.execPath)} -e '${CHILD}'`
    expect(lastLine(execSync(command))).toEqual(GUARDED)
    const output = await new Promise<string>((resolve, reject) =>
      exec(command, { env: { PATH: process.env.PATH, NODE_OPTIONS: '--no-deprecation' } }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
    )
    expect(lastLine(output)).toEqual(GUARDED)
  })
})
