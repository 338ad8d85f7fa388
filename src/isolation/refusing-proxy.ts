// A loopback HTTP proxy that refuses every request. Child processes get it in their proxy variables, so a
// program that honours them (curl, wget, git, pip, Go, Python and Ruby clients) asks it instead of the
// network; it answers 403 and tells this thread who asked for what. It runs in a worker thread of its own:
// a spawnSync blocks this thread while the program waits for the proxy's answer.
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads'
import { globalSlot } from '../shared/global-slot.js'

/**
 * What the proxy was asked: `target` (`example.com:443`), a refused program's argv that its stand-in sent, or
 * a connection an interpreter's guard refused (network-python.ts).
 */
export interface ProxyRequest {
  /** The user name of the proxy URL the child got (`http://<token>@127.0.0.1:<port>`), when the client sent it. */
  token: string | undefined
  /** The client's User-Agent (`curl/8.5.0`), when it sent one. */
  agent: string | undefined
  target?: string
  refusedArgv?: string[]
  /** `{ target: 'example.com:80', by: 'Python 3.11.7' }`. */
  refusedSocket?: { target: string; by: string }
}

/** A Worker option the network guard lets through unguarded: the proxy's own thread reaches loopback alone. */
export const UNGUARDED_WORKER = Symbol.for('vitest-environment-pi:unguarded-worker')

export interface Proxy {
  port: number
  /** Hands the listener, now, what the proxy was asked so far: a spawnSync's child asked it while this thread waited. */
  drain(): void
}

const proxy = globalSlot<Proxy>('refusing-proxy')
const START_MS = 5000

/**
 * The proxy's port. The first call starts it, waiting (synchronously) until it listens, and its `listener`
 * hears every request from then on: one per thread, whichever copy of this module started it.
 */
export function refusingProxy(listener: (request: ProxyRequest) => void): Proxy {
  return proxy.get() ?? start(listener)
}

function start(listener: (request: ProxyRequest) => void): Proxy {
  const shared = new Int32Array(new SharedArrayBuffer(4))
  const { port1: asked, port2 } = new MessageChannel()
  // None of the process's flags: `--input-type=module` (from `node --input-type=module -e`, or NODE_OPTIONS) would
  // make PROXY_CODE a module without `require`, and preloads have no business in this thread.
  const execArgv = ['--input-type=commonjs']
  const worker = new Worker(PROXY_CODE, { eval: true, execArgv, workerData: { shared, asked: port2 }, transferList: [port2], [UNGUARDED_WORKER]: true } as object)
  asked.on('message', listener)
  asked.unref()
  worker.unref()
  // Sync, once per thread: spawnSync needs the port before it returns.
  Atomics.wait(shared, 0, 0, START_MS)
  const port = Atomics.load(shared, 0)
  if (port <= 0) {
    void worker.terminate()
    throw new Error(`The network guard's proxy for child processes did not start in ${START_MS} ms${port < 0 ? ' (it could not listen on 127.0.0.1)' : ''}`)
  }
  const drain = () => {
    for (let next = receiveMessageOnPort(asked); next !== undefined; next = receiveMessageOnPort(asked)) listener(next.message as ProxyRequest)
  }
  const running = { port, drain }
  proxy.set(running)
  return running
}

// CommonJS, evaluated in the worker: no module of the package is loaded there.
const PROXY_CODE = `
const { workerData } = require('node:worker_threads')
const http = require('node:http')
const { shared: state, asked: port } = workerData
const tokenOf = (request) => {
  const basic = /^Basic\\s+(\\S+)/i.exec(request.headers['proxy-authorization'] || '')
  return basic ? Buffer.from(basic[1], 'base64').toString().split(':')[0] : undefined
}
const asked = (request, fields) => port.postMessage({ token: tokenOf(request), agent: request.headers['user-agent'], ...fields })
const refusal = (target) => 'Network access is disabled in tests: ' + target + '\\n'
const server = http.createServer((request, response) => {
  const told = { '/refused-program': 'refusedArgv', '/refused-socket': 'refusedSocket' }[request.url]
  if (request.method === 'POST' && told !== undefined) {
    let body = ''
    request.setEncoding('utf8').on('data', (chunk) => (body += chunk)).on('end', () => {
      try { asked(request, { [told]: JSON.parse(body) }) } catch {}
      response.end()
    })
    return
  }
  let target = request.url
  try {
    const url = new URL(request.url)
    target = url.hostname + ':' + (url.port || { 'https:': 443, 'ftp:': 21 }[url.protocol] || 80)
  } catch {}
  asked(request, { target })
  response.writeHead(403, { 'content-type': 'text/plain', connection: 'close' }).end(refusal(target))
})
server.on('connect', (request, socket) => {
  asked(request, { target: request.url })
  const body = refusal(request.url)
  socket.on('error', () => {})
  socket.end('HTTP/1.1 403 Forbidden\\r\\nContent-Type: text/plain\\r\\nConnection: close\\r\\nContent-Length: ' + Buffer.byteLength(body) + '\\r\\n\\r\\n' + body)
})
server.on('clientError', (error, socket) => socket.destroy())
server.on('error', () => { Atomics.store(state, 0, -1); Atomics.notify(state, 0) })
server.listen(0, '127.0.0.1', () => {
  Atomics.store(state, 0, server.address().port)
  Atomics.notify(state, 0)
})
`
