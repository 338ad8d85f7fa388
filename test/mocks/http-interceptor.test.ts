import { execFile } from 'node:child_process'
import http from 'node:http'
import { get as httpsGet, request as httpsRequest } from 'node:https'
import net, { type AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { Agent, FormData as UndiciFormData, fetch as undiciFetch, request as undiciRequest } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { interceptHttp, loadHttpInterception, type InterceptedRequest } from '../../src/mocks/http-interceptor.js'
import { createHttpMock } from '../../src/mocks/http.js'
import { layFloor, type Floor } from '../support/network-floor.mjs'

let restore: (() => void) | undefined
beforeAll(loadHttpInterception)
afterEach(() => {
  restore?.()
  restore = undefined
})

/** Answers every request with what it saw, as JSON, and keeps the requests. */
function echo() {
  const seen: InterceptedRequest[] = []
  restore = interceptHttp((request) => {
    seen.push(request)
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) }
  })
  return seen
}

describe('interceptHttp answers', () => {
  it('globalThis.fetch, with status, status text, headers and body from the handler', async () => {
    restore = interceptHttp(() => ({ status: 201, headers: { 'x-answer': '42' }, body: 'made' }))
    const response = await fetch('https://api.test/items', { method: 'POST', body: 'x' })
    expect([response.status, response.statusText, response.headers.get('x-answer'), await response.text()]).toEqual([201, 'Created', '42', 'made'])
  })

  it("undici's fetch and request", async () => {
    restore = interceptHttp((request) => ({ status: 200, headers: {}, body: `${request.method} ${request.url}` }))
    const fetched = await undiciFetch('https://api.test/a?b=1')
    expect(await fetched.text()).toBe('GET https://api.test/a?b=1')
    const requested = await undiciRequest('http://api.test:8080/r', { method: 'DELETE' })
    expect([requested.statusCode, await requested.body.text()]).toEqual([200, 'DELETE http://api.test:8080/r'])
  })

  it('an async handler', async () => {
    restore = interceptHttp(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5))
      return { status: 202, headers: {}, body: 'later' }
    })
    expect(await (await fetch('https://api.test/')).text()).toBe('later')
  })

  it('concurrent requests each with their own answer', async () => {
    restore = interceptHttp(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, request.url.endsWith('slow') ? 20 : 1))
      return { status: 200, headers: {}, body: request.url }
    })
    const bodies = await Promise.all(['https://a.test/slow', 'https://b.test/fast'].map(async (url) => (await fetch(url)).text()))
    expect(bodies).toEqual(['https://a.test/slow', 'https://b.test/fast'])
  })
})

describe('interceptHttp requests as the handler sees them', () => {
  it('method, full URL, lower-cased headers and a string body from globalThis.fetch', async () => {
    const seen = echo()
    await fetch('https://api.test/v1/items?page=2', { method: 'PUT', headers: { 'X-Key': 'k', Authorization: 'Bearer t' }, body: 'plain text' })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ method: 'PUT', url: 'https://api.test/v1/items?page=2', body: 'plain text' })
    expect(seen[0]!.headers).toMatchObject({ 'x-key': 'k', authorization: 'Bearer t', 'content-type': 'text/plain;charset=UTF-8' })
  })

  it('a bare origin gets the path fetch gives it', async () => {
    const seen = echo()
    await fetch('http://example.test')
    expect(seen.map((r) => r.url)).toEqual(['http://example.test/'])
  })

  it('a JSON body', async () => {
    const seen = echo()
    await fetch('https://api.test/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op: 'sum', xs: [1, 2] }) })
    expect(seen.map((r) => r.body)).toEqual(['{"op":"sum","xs":[1,2]}'])
  })

  it('Buffer, typed-array, Blob, URLSearchParams and stream bodies from globalThis.fetch', async () => {
    const seen = echo()
    await fetch('https://api.test/', { method: 'POST', body: Buffer.from('from a buffer') })
    await fetch('https://api.test/', { method: 'POST', body: new TextEncoder().encode('from bytes') })
    await fetch('https://api.test/', { method: 'POST', body: new Blob(['from a ', 'blob']) })
    await fetch('https://api.test/', { method: 'POST', body: new URLSearchParams({ q: 'a b' }) })
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('streamed '))
        controller.enqueue(new TextEncoder().encode('in chunks'))
        controller.close()
      },
    })
    await fetch('https://api.test/', { method: 'POST', body: stream, duplex: 'half' } as RequestInit)
    expect(seen.map((r) => r.body)).toEqual(['from a buffer', 'from bytes', 'from a blob', 'q=a+b', 'streamed in chunks'])
  })

  it('a FormData body as multipart text', async () => {
    const seen = echo()
    const form = new FormData()
    form.set('field', 'form value')
    await fetch('https://api.test/', { method: 'POST', body: form })
    expect(seen[0]!.body).toContain('name="field"\r\n\r\nform value\r\n')
  })

  it("a FormData body of undici's own fetch as multipart text", async () => {
    const seen = echo()
    const form = new UndiciFormData()
    form.set('field', 'undici form value')
    await undiciFetch('https://api.test/', { method: 'POST', body: form })
    expect(seen[0]!.body).toContain('name="field"\r\n\r\nundici form value\r\n')
  })

  it("string, Buffer and Readable bodies from undici's request", async () => {
    const seen = echo()
    await (await undiciRequest('https://api.test/', { method: 'POST', body: 'request string' })).body.text()
    await (await undiciRequest('https://api.test/', { method: 'POST', body: Buffer.from('request buffer') })).body.text()
    await (await undiciRequest('https://api.test/', { method: 'POST', body: Readable.from(['readable ', Buffer.from('stream')]) })).body.text()
    expect(seen.map((r) => r.body)).toEqual(['request string', 'request buffer', 'readable stream'])
  })

  it('no body as the empty string', async () => {
    const seen = echo()
    await fetch('https://api.test/')
    expect(seen.map((r) => r.body)).toEqual([''])
  })
})

/** A node:http(s) request through `request`, as clients built on it (axios, got) make it. */
function nodeRequest(request: typeof http.request, url: string, options: http.RequestOptions = {}, body?: string) {
  return new Promise<{ status: number; statusText: string; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = request(url, options, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, statusText: response.statusMessage!, headers: response.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('interceptHttp answers node:http and node:https', () => {
  // Were the interceptor to miss a request, the floor stops its DNS lookup and connection: nothing leaves.
  let floor: Floor
  beforeAll(async () => {
    floor = await layFloor()
  })
  afterAll(() => {
    floor.restore()
    expect(floor.stopped).toEqual([])
  })

  it('http.request and https.request, with status, status text, headers and body from the handler', async () => {
    const seen = echo()
    const plain = await nodeRequest(http.request, 'http://api.test:8080/a?b=1', { method: 'PUT', headers: { 'X-Key': 'k' } }, 'plain body')
    expect([plain.status, plain.statusText, plain.headers['content-type']]).toEqual([200, 'OK', 'application/json'])
    expect(JSON.parse(plain.body)).toMatchObject({ method: 'PUT', url: 'http://api.test:8080/a?b=1', body: 'plain body', headers: { 'x-key': 'k' } })
    await nodeRequest(httpsRequest, 'https://api.test/secure', { method: 'POST' }, 'secret')
    expect(seen.map((r) => [r.method, r.url, r.body])).toEqual([
      ['PUT', 'http://api.test:8080/a?b=1', 'plain body'],
      ['POST', 'https://api.test/secure', 'secret'],
    ])
  })

  it('http.get and a named import of https.get, with no body as the empty string', async () => {
    const seen = echo()
    const get = (fn: typeof http.get, url: string) => new Promise<number>((resolve, reject) => fn(url, (r) => resolve(r.resume().statusCode!)).on('error', reject))
    expect([await get(http.get, 'http://api.test/one'), await get(httpsGet, 'https://api.test/two')]).toEqual([200, 200])
    expect(seen.map((r) => [r.method, r.url, r.body])).toEqual([
      ['GET', 'http://api.test/one', ''],
      ['GET', 'https://api.test/two', ''],
    ])
  })

  it('new http.ClientRequest', async () => {
    const seen = echo()
    const status = await new Promise<number>((resolve, reject) => new http.ClientRequest('http://api.test/three', (r) => resolve(r.resume().statusCode!)).on('error', reject).end())
    expect([status, seen.map((r) => r.url)]).toEqual([200, ['http://api.test/three']])
  })

  it('a 204 without a body, with its headers', async () => {
    restore = interceptHttp(() => ({ status: 204, headers: { 'x-a': '1' }, body: '' }))
    const answer = await nodeRequest(http.request, 'http://api.test/')
    expect([answer.status, answer.statusText, answer.headers['x-a'], answer.body]).toEqual([204, 'No Content', '1', ''])
  })

  it('an Error answer, or a handler that throws, is emitted as the request error', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED api.test:443'), { code: 'ECONNREFUSED' })
    restore = interceptHttp(() => refused)
    await expect(nodeRequest(httpsRequest, 'https://api.test/')).rejects.toBe(refused)
    restore()
    restore = interceptHttp(() => {
      throw new Error('handler broke')
    })
    await expect(nodeRequest(http.request, 'http://api.test/')).rejects.toThrow('handler broke')
  })

  it('nested installs: the newest answers, and the older again once it is released', async () => {
    const outer = interceptHttp(() => ({ status: 200, headers: {}, body: 'outer' }))
    try {
      const inner = interceptHttp(() => ({ status: 200, headers: {}, body: 'inner' }))
      expect((await nodeRequest(http.request, 'http://api.test/')).body).toBe('inner')
      inner()
      expect((await nodeRequest(http.request, 'http://api.test/')).body).toBe('outer')
    } finally {
      outer()
    }
  })
})

describe('interceptHttp network errors', () => {
  it('an Error answer rejects fetch like a failed connection, with the error as cause', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED api.test:443'), { code: 'ECONNREFUSED' })
    restore = interceptHttp(() => refused)
    const failure = await fetch('https://api.test/').catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(TypeError)
    expect(failure).toMatchObject({ message: 'fetch failed', cause: refused })
    await expect(undiciFetch('https://api.test/')).rejects.toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: refused })
    await expect(undiciRequest('https://api.test/')).rejects.toBe(refused)
  })

  it('a handler that throws fails the request with what it threw', async () => {
    restore = interceptHttp(() => {
      throw new Error('handler broke')
    })
    await expect(fetch('https://api.test/')).rejects.toMatchObject({ message: 'fetch failed', cause: { message: 'handler broke' } })
  })
})

describe('interceptHttp beneath the clients', () => {
  it("answers undici's request through a dispatcher of its own, not the global one", async () => {
    restore = interceptHttp((request) => ({ status: 200, headers: {}, body: `${request.method} ${request.url}` }))
    const agent = new Agent()
    try {
      const requested = await undiciRequest('https://api.test/own', { dispatcher: agent })
      expect([requested.statusCode, await requested.body.text()]).toEqual([200, 'GET https://api.test/own'])
    } finally {
      await agent.close()
    }
  })

  it('headers as sent, with those the client adds', async () => {
    const seen = echo()
    await (await undiciRequest('https://api.test:8443/h', { headers: { 'X-Key': 'k' } })).body.text()
    expect(seen[0]!.headers).toEqual({ host: 'api.test:8443', connection: 'keep-alive', 'x-key': 'k' })
  })

  it('passes TCP traffic that is not HTTP on to the connection, in either order of speaking', async () => {
    restore = interceptHttp(() => ({ status: 200, headers: {}, body: 'intercepted' }))
    const server = net.createServer((socket) => {
      socket.write('220 ready\r\n')
      socket.on('data', (data) => socket.end(`echo ${String(data)}`))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1')
      const greeting = await new Promise<string>((resolve) => socket.once('data', (data) => resolve(String(data))))
      socket.write('PING')
      const reply = await new Promise<string>((resolve) => socket.once('data', (data) => resolve(String(data))))
      socket.destroy()
      expect([greeting, reply]).toEqual(['220 ready\r\n', 'echo PING'])
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('interceptHttp with createHttpMock', () => {
  it('answers fetch from spec rules and fails unhandled requests with the unhandled error', async () => {
    const unhandled: Error[] = []
    const mock = createHttpMock(
      { rules: [{ match: { method: 'GET', url_prefix: 'https://api.test/' }, response: { status: 200, body_json: { ok: true } } }] },
      { unhandled: 'error', onUnhandled: (error) => unhandled.push(error), record: () => {}, warn: () => {} },
    )
    restore = interceptHttp(mock.handle)
    const response = await fetch('https://api.test/status')
    expect([response.status, response.headers.get('content-type'), await response.json()]).toEqual([200, 'application/json', { ok: true }])
    const failure = await fetch('https://other.test/', { method: 'POST' }).catch((error: unknown) => error)
    expect(failure).toMatchObject({ message: 'fetch failed', cause: unhandled[0] })
    expect(unhandled.map((e) => e.message)).toEqual([
      'Unhandled request: POST https://other.test/ (no rule matched and http.default_response is not set)\n' +
        '  http.rules[0] did not match: the method is POST, not GET; the URL does not start with "https://api.test/"',
    ])
  })

  it("'bypass' rejects fetch as a refused connection without touching the network", async () => {
    const mock = createHttpMock({}, { unhandled: 'bypass', onUnhandled: () => {}, record: () => {}, warn: () => {} })
    restore = interceptHttp(mock.handle)
    await expect(fetch('https://api.test/')).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: { message: 'connect ECONNREFUSED api.test:443', code: 'ECONNREFUSED' },
    })
  })
})

describe('interceptHttp restore', () => {
  it('each release once: the interception stays while another install holds it', async () => {
    const release = interceptHttp(() => ({ status: 200, headers: {}, body: 'first' }))
    const other = interceptHttp(() => ({ status: 200, headers: {}, body: 'other' }))
    release()
    release()
    try {
      expect(await (await fetch('https://api.test/')).text()).toBe('other')
    } finally {
      other()
    }
  })

  it('lets fetch and http.request reach a local server again after restore', async () => {
    const server = http.createServer((_request, response) => response.end('real server'))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
      const release = interceptHttp(() => ({ status: 200, headers: {}, body: 'intercepted' }))
      expect([await (await fetch(url)).text(), (await nodeRequest(http.request, url)).body]).toEqual(['intercepted', 'intercepted'])
      release()
      expect([await (await fetch(url)).text(), (await nodeRequest(http.request, url)).body]).toEqual(['real server', 'real server'])
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('interceptHttp waits for the first connection', () => {
  it('changes nothing until a connection is made, and leaves nothing behind after one', async () => {
    const before = { connect: net.Socket.prototype.connect, Headers: globalThis.Headers }
    const release = interceptHttp(() => ({ status: 200, headers: {}, body: 'answered' }))
    try {
      expect(globalThis.Headers).toBe(before.Headers)
      expect(await (await fetch('http://127.0.0.1:2/first')).text()).toBe('answered')
    } finally {
      release()
    }
    expect({ connect: net.Socket.prototype.connect, Headers: globalThis.Headers }).toEqual(before)
  })

  it('answers a first connection made through a patch laid over it, and leaves that patch working', async () => {
    const original = net.Socket.prototype.connect
    const release = interceptHttp(() => ({ status: 200, headers: {}, body: 'answered' }))
    const below = net.Socket.prototype.connect
    const seen: string[] = []
    net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
      seen.push('connect')
      return Reflect.apply(below, this, args) as net.Socket
    } as typeof below
    const theirs = net.Socket.prototype.connect
    try {
      expect(await (await fetch('http://127.0.0.1:2/through')).text()).toBe('answered')
      release()
      expect(net.Socket.prototype.connect).toBe(theirs)
      await expect(fetch('http://127.0.0.1:2/after')).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } })
      expect(seen.length).toBeGreaterThanOrEqual(2)
    } finally {
      release()
      // Theirs came off, and with it the trap it buried.
      net.Socket.prototype.connect = original
    }
  })

  // A fresh process, so that nothing has loaded the library before; with and without require() of ES
  // modules (where Node lacks it, the library loads as the isolation is entered). A session with HTTP rules
  // loads it before it starts, so that its first request does not wait for it.
  it.each([
    [[], false],
    [['--no-experimental-require-module'], true],
  ])('in a fresh process (node %j): a session without requests leaves fetch alone; the next, with rules, is answered', async (flags, loadedAfterQuiet) => {
    const script = new URL('../fixtures/processes/first-connection.mjs', import.meta.url).pathname
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [...flags, script], { timeout: 60_000, killSignal: 'SIGKILL' }, (error, out, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(out))),
    )
    expect(JSON.parse(stdout)).toEqual({
      quietHeaders: true,
      loadedAfterQuiet,
      loadedBeforeRequest: true,
      answer: 'all good',
      recorded: ['GET http://127.0.0.1:2/status http.rules[0]'],
    })
  })
})
