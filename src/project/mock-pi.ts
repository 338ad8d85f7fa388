// A fake `pi` executable on PATH, for extensions that spawn Pi itself (subagents, handoffs).
import { chmodSync, readdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { setEnv } from '../shared/env.js'
import { describeReceived, describeValue, messageOf } from '../shared/errors.js'
import { trackLive } from '../session/live-sessions.js'
import { childResponse, type ChildResponse, type MockPiResponse } from './mock-pi-reply.js'

export type { MockPiResponse } from './mock-pi-reply.js'

export interface MockPiCall {
  args: string[]
  cwd: string
}

/** Answers a call from its arguments and cwd; runs in the test's process, so it sees the test's variables. */
export type MockPiResponder = (call: MockPiCall) => MockPiResponse | Promise<MockPiResponse>

export interface MockPi {
  /** The folder holding the executable. */
  readonly dir: string
  /** Queues a response, or a responder that answers its turn; the last one repeats once the queue is used up. */
  onCall(response: MockPiResponse | MockPiResponder): MockPi
  /** Puts the fake `pi` first on PATH. */
  install(): void
  /** Restores PATH as it was. */
  uninstall(): void
  /** Forgets queued responses and recorded calls. */
  reset(): void
  callCount(): number
  calls(): MockPiCall[]
  /** Uninstalls and removes the folder; then throws if a responder failed (threw, or answered something that is not a response). */
  dispose(): void
}

/** A queued entry as the executable reads it: a response, or the number of a responder to ask over the socket. */
type QueueEntry = ChildResponse | { responder: number }

// How long the executable waits for a responder by default: the test's process answers at once unless it is
// blocked (spawnSync) or the responder never settles.
const RESPONDER_WAIT_MS = 10_000

// The executable: answers from queue.json and records each call in its own file (stdin is left alone: a caller may never close it).
const SCRIPT = `
const fs = require('node:fs'), net = require('node:net'), path = require('node:path')
const dir = __dirname
const WAIT_MS = Number(fs.readFileSync(path.join(dir, 'wait-ms'), 'utf8'))
const queue = JSON.parse(fs.readFileSync(path.join(dir, 'queue.json'), 'utf8'))
// Claim the next call number with an exclusive create, so that parallel calls never share one.
let index = 0, fd
for (;; index++) {
  try { fd = fs.openSync(path.join(dir, 'call-' + index + '.json'), 'wx'); break } catch (e) { if (e.code !== 'EEXIST') throw e }
}
const call = { args: process.argv.slice(2), cwd: process.cwd() }
fs.writeSync(fd, JSON.stringify(call))
fs.closeSync(fd)
const fail = (message) => { process.stderr.write(message + '\\n'); process.exitCode = 1 }
const entry = queue.length ? queue[Math.min(index, queue.length - 1)] : undefined
if (entry === undefined) fail('mock pi: no response queued (call onCall first)')
else if (entry.responder === undefined) answer(entry)
else ask(entry.responder)

function ask(responder) {
  const socket = net.connect(JSON.parse(fs.readFileSync(path.join(dir, 'socket.json'), 'utf8')))
  // The test's process acknowledges the request before it asks the responder: silence means it is blocked.
  let acknowledged = false
  const timer = setTimeout(() => {
    socket.destroy()
    fail(acknowledged
      ? 'mock pi: the responder for call ' + (index + 1) + ' was asked and did not answer within ' + WAIT_MS / 1000 + ' s: does it return a promise that never resolves?'
      : 'mock pi: the test process did not take call ' + (index + 1) + ' within ' + WAIT_MS / 1000 + ' s: is it blocked (spawnSync, execSync)? A responder needs pi spawned asynchronously')
  }, WAIT_MS)
  let reply = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk) => {
    reply += chunk
    if (!acknowledged && reply.startsWith('\\n')) { acknowledged = true; reply = reply.slice(1) }
  })
  socket.on('error', (error) => { clearTimeout(timer); fail('mock pi: cannot reach the responder: ' + error.message) })
  socket.on('end', () => {
    clearTimeout(timer)
    const { response, error } = JSON.parse(reply)
    if (error !== undefined) fail(error)
    else answer(response)
  })
  socket.end(JSON.stringify({ responder, index, call }))
}

function answer(r) {
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
}
`

// An argument as a shell would need it written: plain words bare, the rest quoted.
const shellWord = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : describeValue(arg))

export interface MockPiOptions {
  /** How long a call waits for its responder before it fails, naming why (default 10 000 ms). */
  responderWaitMs?: number
}

export function createMockPi(options: MockPiOptions = {}): MockPi {
  const waitMs = options.responderWaitMs ?? RESPONDER_WAIT_MS
  if (!Number.isFinite(waitMs) || waitMs <= 0) throw new TypeError(`createMockPi: option "responderWaitMs" must be a positive number of milliseconds, got ${describeReceived(waitMs)}`)
  const dir = mkdtempSync(join(tmpdir(), 'pi-mock-bin-'))
  const queuePath = join(dir, 'queue.json')
  const queue: QueueEntry[] = []
  const responders: MockPiResponder[] = []
  const failures: string[] = []
  // Responders asked that have not settled yet.
  const asked = new Set<string>()
  let server: Server | undefined
  const save = () => writeFileSync(queuePath, JSON.stringify(queue))
  writeFileSync(join(dir, 'pi.cjs'), SCRIPT)
  writeFileSync(join(dir, 'wait-ms'), String(waitMs))
  writeFileSync(join(dir, 'pi'), `#!/bin/sh\nexec "${process.execPath}" "${join(dir, 'pi.cjs')}" "$@"\n`)
  chmodSync(join(dir, 'pi'), 0o755)
  save()
  let restorePath: (() => void) | undefined
  const callFiles = () =>
    (existsSync(dir) ? readdirSync(dir) : [])
      .filter((file) => /^call-\d+\.json$/.test(file))
      .sort((a, b) => Number(a.slice(5, -5)) - Number(b.slice(5, -5)))

  // Asks the responder the executable names; a failure goes back to the executable and is kept for dispose().
  async function respond(request: { responder: number; index: number; call: MockPiCall }): Promise<{ response?: ChildResponse; error?: string }> {
    const where = `mockPi: the responder for call ${request.index + 1} (pi ${request.call.args.map(shellWord).join(' ')})`
    let value: unknown
    asked.add(where)
    try {
      value = await responders[request.responder]!(request.call)
    } catch (error) {
      failures.push(`${where} threw: ${messageOf(error)}`)
      return { error: failures.at(-1) }
    } finally {
      asked.delete(where)
    }
    try {
      return { response: childResponse(value, `${where} answered`) }
    } catch (error) {
      failures.push(messageOf(error))
      return { error: failures.at(-1) }
    }
  }

  function listen(): void {
    // Half-open: the executable ends its side after its request and reads the answer after that.
    server = createServer({ allowHalfOpen: true }, (socket) => {
      let text = ''
      socket.setEncoding('utf8')
      socket.write('\n')
      socket.on('data', (chunk: string) => (text += chunk))
      socket.on('end', () => void respond(JSON.parse(text)).then((reply) => socket.end(JSON.stringify(reply))))
      socket.on('error', () => {})
    })
    const address = responderAddress(dir)
    // Kept for dispose(): an uncaught EADDRINUSE would crash the test's process, far from the mock.
    server.on('error', (error) => failures.push(`mockPi: the responder's socket ${JSON.stringify(address)} failed: ${messageOf(error)}`))
    writeFileSync(join(dir, 'socket.json'), JSON.stringify(address))
    // The test's process may exit with the server open; a caller still running then fails on its own.
    server.unref().listen(address)
  }

  const mock: MockPi = {
    dir,
    onCall(response) {
      if (typeof response === 'function') {
        if (server === undefined) listen()
        queue.push({ responder: responders.push(response) - 1 })
      } else {
        queue.push(childResponse(response, 'mockPi.onCall'))
      }
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
      untrack()
      mock.uninstall()
      server?.close()
      rmSync(dir, { recursive: true, force: true })
      for (const where of asked) failures.push(`${where} never answered: does it return a promise that never resolves?`)
      asked.clear()
      if (failures.length > 0) throw new Error(failures.splice(0).join('\n'))
    },
  }
  // Disposed when the file ends if no one did before: PATH and the folder are not left behind.
  const untrack = trackLive(async () => mock.dispose())
  return mock
}

/**
 * Where the responder listens: an abstract socket on Linux (no file, no length to outgrow), a named pipe on
 * Windows, else a socket file, in a short folder when the mock's own path would pass the ~104 bytes a
 * socket path may have (a long TMPDIR would cut it, and another mock's socket could answer).
 */
function responderAddress(dir: string): string {
  const name = `pi-mock-${randomBytes(8).toString('hex')}`
  if (process.platform === 'linux') return `\0${name}`
  if (process.platform === 'win32') return `\\\\.\\pipe\\${name}`
  const inDir = join(dir, 'responder.sock')
  return Buffer.byteLength(inDir) < 100 ? inDir : join('/tmp', `${name}.sock`)
}
