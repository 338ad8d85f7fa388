import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { guardNetwork, LINGER_MS } from '../../src/isolation/network-guard.js'
import { connectTarget } from '../support/network-audit.js'
import { layFloor, type Floor } from '../support/network-floor.mjs'

type Connect = typeof net.Socket.prototype.connect

// Beneath the guard, two stubs record what gets past it and send nothing beyond loopback, even if the guard
// regressed: the recorder on Socket#connect (it counts what reached "the real connect") and, beneath every
// JavaScript layer, the floor on the native handles and the resolver.
let floor: Floor
let realConnects: unknown[][] = []
let unpatched: Connect
let releases: (() => void)[] = []

beforeAll(async () => {
  floor = await layFloor()
})

afterAll(() => floor.restore())

beforeEach(() => {
  realConnects = []
  unpatched = net.Socket.prototype.connect
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    realConnects.push(args)
    // A connection with a lookup of its own goes where that lookup, which the guard judges, points it.
    const beyond = hasOwnLookup(args) ? undefined : connectTarget(args)
    if (beyond === undefined) return (unpatched as (...args: unknown[]) => net.Socket).apply(this, args)
    this.destroy(new Error(`stopped beneath the guard: ${beyond}`))
    return this
  } as Connect
})

afterEach(() => {
  for (const release of releases) release()
  releases = []
  net.Socket.prototype.connect = unpatched
  // Emptied as it is checked, so that one test's failure is not blamed on the next.
  expect(floor.stopped.splice(0)).toEqual([])
})

function guard(onBlocked?: (target: string) => void): () => void {
  const release = guardNetwork(onBlocked)
  releases.push(release)
  return release
}

function hasOwnLookup(args: unknown[]): boolean {
  const options = (Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0]) as { lookup?: unknown } | null
  return typeof options === 'object' && options !== null && typeof options.lookup === 'function'
}

/** A name resolution of the caller's own that answers every name with `address`, in either of Node's forms. */
function resolvingTo(address: string): net.LookupFunction {
  return (_hostname, options, callback) => {
    const family = net.isIPv6(address) ? 6 : 4
    const answer = callback as (error: Error | null, address: unknown, family?: number) => void
    process.nextTick(() => (options.all ? answer(null, [{ address, family }]) : answer(null, address, family)))
  }
}

function socketError(socket: net.Socket): Promise<NodeJS.ErrnoException> {
  return new Promise((resolve, reject) => {
    socket.on('error', resolve)
    socket.on('connect', () => reject(new Error('connected')))
  })
}

async function withLocalServer<T>(use: (port: number) => Promise<T>): Promise<T> {
  const server = http.createServer((_request, response) => response.end('local ok'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    return await use((server.address() as net.AddressInfo).port)
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

describe('guardNetwork blocks', () => {
  it('fetch to a public host, with the guard error as the cause', async () => {
    const blocked: string[] = []
    guard((target) => blocked.push(target))
    await expect(fetch('http://example.com')).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: { message: 'Network access is disabled in tests: example.com:80', code: 'ENETUNREACH' },
    })
    expect(blocked).toEqual(['example.com:80'])
    expect(realConnects).toEqual([])
  })

  it('net.connect to a public address, as an asynchronous socket error', async () => {
    const blocked: string[] = []
    guard((target) => blocked.push(target))
    let sync = true
    const socket = net.connect(80, '93.184.216.34')
    const error = socketError(socket)
    sync = false
    await expect(error).resolves.toMatchObject({
      message: 'Network access is disabled in tests: 93.184.216.34:80',
      code: 'ENETUNREACH',
      syscall: 'connect',
      address: '93.184.216.34',
      port: 80,
    })
    expect(sync).toBe(false)
    expect(socket.destroyed).toBe(true)
    expect(blocked).toEqual(['93.184.216.34:80'])
    expect(realConnects).toEqual([])
  })

  it('https.get, through tls', async () => {
    guard()
    const error = await new Promise<Error>((resolve) => https.get('https://example.com', () => resolve(new Error('answered'))).on('error', resolve))
    expect(error.message).toBe('Network access is disabled in tests: example.com:443')
    expect(realConnects).toEqual([])
  })

  it('net.connect with an options object, and an IPv6 or private address', async () => {
    guard()
    const errors = await Promise.all([
      socketError(net.connect({ host: '2606:2800:220:1::1', port: 443 })),
      socketError(net.connect({ host: '10.0.0.1', port: 22 })),
      socketError(new net.Socket().connect(8080, 'internal.test')),
    ])
    expect(errors.map((e) => e.message)).toEqual([
      'Network access is disabled in tests: 2606:2800:220:1::1:443',
      'Network access is disabled in tests: 10.0.0.1:22',
      'Network access is disabled in tests: internal.test:8080',
    ])
    expect(realConnects).toEqual([])
  })
})

describe('guardNetwork judges a connection with a lookup of its own by the addresses it resolves', () => {
  it('refuses one resolved beyond loopback, naming the host it was asked for', async () => {
    const blocked: string[] = []
    guard((target) => blocked.push(target))
    const errors = await Promise.all([
      socketError(net.connect({ host: 'api.test', port: 443, lookup: resolvingTo('93.184.216.34') })),
      socketError(net.connect({ host: 'v6.test', port: 80, lookup: resolvingTo('2606:2800:220:1::1'), autoSelectFamily: false })),
    ])
    expect(errors.map((e) => [e.message, e.code])).toEqual([
      ['Network access is disabled in tests: api.test:443', 'ENETUNREACH'],
      ['Network access is disabled in tests: v6.test:80', 'ENETUNREACH'],
    ])
    expect(blocked).toEqual(['api.test:443', 'v6.test:80'])
  })

  it('lets through one resolved to loopback', async () => {
    const blocked: string[] = []
    guard((target) => blocked.push(target))
    await withLocalServer(async (port) => {
      expect(await getText({ host: 'api.test', port, lookup: resolvingTo('127.0.0.1') })).toBe('local ok')
    })
    expect(blocked).toEqual([])
  })
})

describe('guardNetwork lets through', () => {
  it('a local http server on 127.0.0.1, by fetch and http.get', async () => {
    const blocked: string[] = []
    guard((target) => blocked.push(target))
    await withLocalServer(async (port) => {
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('local ok')
      expect(await getText(`http://127.0.0.1:${port}/`)).toBe('local ok')
    })
    expect(blocked).toEqual([])
    expect(realConnects.length).toBeGreaterThanOrEqual(2)
  })

  it('the rest of 127.0.0.0/8, localhost, ::1 and unix sockets to the real connect', () => {
    guard()
    const dir = mkdtempSync(join(tmpdir(), 'guard-'))
    const sockets = [
      net.connect(9, '127.1.2.3'),
      net.connect({ host: 'localhost', port: 9 }),
      net.connect({ port: 9 }),
      net.connect(9, '::1'),
      net.connect(join(dir, 'absent.sock')),
    ]
    for (const socket of sockets) socket.on('error', () => {}).destroy()
    rmSync(dir, { recursive: true, force: true })
    expect(realConnects).toHaveLength(5)
  })
})

describe('guardNetwork nesting', () => {
  it('stays on until the last release, reports to every guard held, and tolerates a repeated release', async () => {
    const outer: string[] = []
    const inner: string[] = []
    const releaseOuter = guard((target) => outer.push(target))
    const releaseInner = guard((target) => inner.push(target))
    await socketError(net.connect(1, '192.0.2.1'))
    releaseInner()
    releaseInner()
    await socketError(net.connect(2, '192.0.2.1'))
    expect(outer).toEqual(['192.0.2.1:1', '192.0.2.1:2'])
    expect(inner).toEqual(['192.0.2.1:1'])
    expect(realConnects).toEqual([])
    releaseOuter()
    const socket = net.connect(3, '192.0.2.1').on('error', () => {})
    socket.destroy()
    expect(realConnects).toHaveLength(1)
  })

  it('restores the connect it found a moment after the last release', async () => {
    const found = net.Socket.prototype.connect
    const release = guard()
    const guarded = net.Socket.prototype.connect
    expect(guarded).not.toBe(found)
    release()
    // Inert meanwhile: what is taken again within the moment reuses the patch, and passes once released.
    expect(net.Socket.prototype.connect).toBe(guarded)
    net.connect(6, '192.0.2.1').on('error', () => {}).destroy()
    expect(realConnects).toHaveLength(1)
    const again = guard()
    expect(net.Socket.prototype.connect).toBe(guarded)
    await expect(socketError(net.connect(7, '192.0.2.1'))).resolves.toMatchObject({ message: 'Network access is disabled in tests: 192.0.2.1:7' })
    again()
    await new Promise((resolve) => setTimeout(resolve, LINGER_MS + 50))
    expect(net.Socket.prototype.connect).toBe(found)
  })

  it('stays beneath a patch layered over it, inert once released', () => {
    const release = guard()
    const guarded = net.Socket.prototype.connect
    const layered: unknown[][] = []
    net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
      layered.push(args)
      return (guarded as (...args: unknown[]) => net.Socket).apply(this, args)
    } as Connect
    const layer = net.Socket.prototype.connect
    release()
    expect(net.Socket.prototype.connect).toBe(layer)
    net.connect(4, '192.0.2.1').on('error', () => {}).destroy()
    expect([layered.length, realConnects.length]).toEqual([1, 1])
  })

  it('guards again after the prototype was replaced under a buried patch', async () => {
    const release = guard()
    const guarded = net.Socket.prototype.connect
    net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
      return (guarded as (...args: unknown[]) => net.Socket).apply(this, args)
    } as Connect
    release()
    net.Socket.prototype.connect = unpatched
    guard()
    await expect(socketError(net.connect(5, '192.0.2.1'))).resolves.toMatchObject({ message: 'Network access is disabled in tests: 192.0.2.1:5' })
  })
})

/** The body of a GET through node:http. */
function getText(target: string | http.RequestOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get(target, (response) => {
      let text = ''
      response.on('data', (chunk: Buffer) => (text += chunk.toString()))
      response.on('end', () => resolve(text))
    }).on('error', reject)
  })
}
