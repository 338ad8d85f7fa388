// A fake `pi` executable on PATH, for extensions that spawn Pi itself (subagents, handoffs).
import { chmodSync, readdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { setEnv } from '../isolation/isolation.js'

export interface MockPiResponse {
  /** Written to stdout. */
  output?: string
  /** Objects written to stdout one JSON document per line (Pi's `--mode json`). */
  jsonl?: unknown[]
  stderr?: string
  exitCode?: number
  /** Milliseconds to wait before answering. */
  delay?: number
  /** Files to write, relative to the caller's cwd, before answering. */
  writeFiles?: Record<string, string>
}

export interface MockPiCall {
  args: string[]
  cwd: string
}

export interface MockPi {
  /** The folder holding the executable. */
  readonly dir: string
  /** Queues a response; the last one repeats once the queue is used up. */
  onCall(response: MockPiResponse): MockPi
  /** Puts the fake `pi` first on PATH. */
  install(): void
  /** Restores PATH as it was. */
  uninstall(): void
  /** Forgets queued responses and recorded calls. */
  reset(): void
  callCount(): number
  calls(): MockPiCall[]
  /** Uninstalls and removes the folder. */
  dispose(): void
}

const RESPONSE_KEYS = new Set(['output', 'jsonl', 'stderr', 'exitCode', 'delay', 'writeFiles'])

// The executable: answers from queue.json and records each call in its own file (stdin is left alone: a caller may never close it).
const SCRIPT = `
const fs = require('node:fs'), path = require('node:path')
const dir = __dirname
const queue = JSON.parse(fs.readFileSync(path.join(dir, 'queue.json'), 'utf8'))
// Claim the next call number with an exclusive create, so that parallel calls never share one.
let index = 0, fd
for (;; index++) {
  try { fd = fs.openSync(path.join(dir, 'call-' + index + '.json'), 'wx'); break } catch (e) { if (e.code !== 'EEXIST') throw e }
}
fs.writeSync(fd, JSON.stringify({ args: process.argv.slice(2), cwd: process.cwd() }))
fs.closeSync(fd)
const r = queue.length ? queue[Math.min(index, queue.length - 1)] : { stderr: 'mock pi: no response queued (call onCall first)\\n', exitCode: 1 }
setTimeout(() => {
  for (const [file, text] of Object.entries(r.writeFiles || {})) {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
    fs.writeFileSync(path.resolve(file), text)
  }
  if (r.output) process.stdout.write(r.output)
  for (const line of r.jsonl || []) process.stdout.write(JSON.stringify(line) + '\\n')
  if (r.stderr) process.stderr.write(r.stderr)
  process.exitCode = r.exitCode || 0
}, r.delay || 0)
`

export function createMockPi(): MockPi {
  const dir = mkdtempSync(join(tmpdir(), 'pi-mock-bin-'))
  const queuePath = join(dir, 'queue.json')
  const queue: MockPiResponse[] = []
  const save = () => writeFileSync(queuePath, JSON.stringify(queue))
  writeFileSync(join(dir, 'pi.cjs'), SCRIPT)
  writeFileSync(join(dir, 'pi'), `#!/bin/sh\nexec "${process.execPath}" "${join(dir, 'pi.cjs')}" "$@"\n`)
  chmodSync(join(dir, 'pi'), 0o755)
  save()
  let restorePath: (() => void) | undefined
  const callFiles = () =>
    (existsSync(dir) ? readdirSync(dir) : [])
      .filter((file) => /^call-\d+\.json$/.test(file))
      .sort((a, b) => Number(a.slice(5, -5)) - Number(b.slice(5, -5)))

  const mock: MockPi = {
    dir,
    onCall(response) {
      const unknown = Object.keys(response).filter((key) => !RESPONSE_KEYS.has(key))
      if (unknown.length > 0) {
        throw new TypeError(`mockPi.onCall: unknown key(s) ${unknown.join(', ')}; known: ${[...RESPONSE_KEYS].join(', ')}`)
      }
      queue.push(response)
      save()
      return mock
    },
    install() {
      restorePath ??= setEnv({ PATH: `${dir}${delimiter}${process.env.PATH ?? ''}` })
    },
    uninstall() {
      restorePath?.()
      restorePath = undefined
    },
    reset() {
      queue.length = 0
      save()
      for (const file of callFiles()) rmSync(join(dir, file))
    },
    callCount: () => mock.calls().length,
    calls: () => callFiles().map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as MockPiCall),
    dispose() {
      mock.uninstall()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return mock
}

