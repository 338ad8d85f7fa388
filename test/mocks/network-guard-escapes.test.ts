// The ways out besides Socket#connect: UDP datagrams, DNS queries and lookups, worker threads. Each refusal
// is checked over the floor (test/support/network-floor.mjs): had the guard let a call through, the floor
// would have stopped and recorded it, so `floor.stopped` stays empty and nothing ever leaves.
import dgram from 'node:dgram'
import dns, { lookup } from 'node:dns'
import { createRequire } from 'node:module'
import net from 'node:net'
import vm from 'node:vm'
import workerThreads from 'node:worker_threads'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { guardNetwork, LINGER_MS } from '../../src/isolation/network-guard.js'
import { layFloor, type Floor } from '../support/network-floor.mjs'

let floor: Floor
let releases: (() => void)[] = []
const sockets: dgram.Socket[] = []

beforeAll(async () => {
  floor = await layFloor()
})

afterAll(() => floor.restore())

afterEach(() => {
  for (const release of releases) release()
  releases = []
  for (const socket of sockets.splice(0)) socket.close()
  // Emptied as it is checked, so that one test's failure is not blamed on the next.
  expect(floor.stopped.splice(0)).toEqual([])
})

// The patches come off a moment after the last release (sessions run back to back reuse them).
const afterLinger = () => new Promise((resolve) => setTimeout(resolve, LINGER_MS + 50))

function guard(onBlocked?: (target: string) => void): () => void {
  const release = guardNetwork(onBlocked)
  releases.push(release)
  return release
}

function udpSocket(type: 'udp4' | 'udp6' = 'udp4'): dgram.Socket {
  const socket = dgram.createSocket(type)
  sockets.push(socket)
  return socket
}

/** Calls `start` with a node-style callback and resolves with the error it gets (null when none). */
function callbackError(start: (callback: (error: Error | null) => void) => void): Promise<Error | null> {
  return new Promise((resolve) => start((error) => resolve(error)))
}

describe('UDP', () => {
  it('refuses a datagram beyond loopback, to the callback, after send has returned', async () => {
    const blocked: string[] = []
    guard((target) => blocked.push(target))
    const events: unknown[] = []
    udpSocket().send('ping', 53, '192.0.2.1', (error) => events.push(error))
    events.push('returned')
    await expect.poll(() => events.length).toBe(2)
    expect(events).toEqual(['returned', expect.objectContaining({ message: 'Network access is disabled in tests: 192.0.2.1:53 (UDP)' })])
    expect(events[1]).toMatchObject({ code: 'ENETUNREACH', syscall: 'send', address: '192.0.2.1', port: 53 })
    expect(blocked).toEqual(['192.0.2.1:53 (UDP)'])
  })

  it('refuses every form of send: offset and length, a host name (never resolved), IPv6, no callback', async () => {
    guard()
    const socket = udpSocket()
    const errors = await Promise.all([
      callbackError((callback) => socket.send(Buffer.from('ping'), 0, 4, 123, 'time.example.com', callback)),
      callbackError((callback) => udpSocket('udp6').send(['p', 'ing'], 5353, '2001:db8::1', callback)),
      new Promise<Error>((resolve) => udpSocket().on('error', resolve).send('ping', 514, '10.0.0.1')),
    ])
    expect(errors.map((error) => error?.message)).toEqual([
      'Network access is disabled in tests: time.example.com:123 (UDP)',
      'Network access is disabled in tests: 2001:db8::1:5353 (UDP)',
      'Network access is disabled in tests: 10.0.0.1:514 (UDP)',
    ])
  })

  it('refuses connect beyond loopback, to the callback or as an error event, and leaves the socket unconnected', async () => {
    guard()
    const socket = udpSocket()
    const error = await callbackError((callback) => socket.connect(53, '192.0.2.1', callback as () => void))
    expect(error).toMatchObject({ message: 'Network access is disabled in tests: 192.0.2.1:53 (UDP)', syscall: 'connect' })
    expect(() => socket.remoteAddress()).toThrow('Not connected')
    const event = await new Promise<Error>((resolve) => udpSocket().on('error', resolve).connect(53, 'dns.example.com'))
    expect(event.message).toBe('Network access is disabled in tests: dns.example.com:53 (UDP)')
  })

  it('refuses to join a multicast group, which announces itself on the network', () => {
    guard()
    const socket = udpSocket()
    expect(() => socket.addMembership('224.0.0.251')).toThrow('Network access is disabled in tests: 224.0.0.251 (UDP multicast)')
    expect(() => socket.addSourceSpecificMembership('192.0.2.1', '232.1.1.1')).toThrow('Network access is disabled in tests: 232.1.1.1 (UDP multicast)')
  })

  it('lets datagrams to loopback through: to an address, to localhost, with no address, over a connected socket', async () => {
    const blocked: string[] = []
    guard((target) => blocked.push(target))
    const server = udpSocket()
    const received: string[] = []
    server.on('message', (message) => received.push(message.toString()))
    await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve))
    const { port } = server.address()
    const client = udpSocket()
    await callbackError((callback) => client.send('to an address', port, '127.0.0.1', callback))
    await callbackError((callback) => client.send('to localhost', port, 'localhost', callback))
    await callbackError((callback) => client.send('with no address', port, callback))
    const connected = udpSocket()
    await callbackError((callback) => connected.connect(port, '127.0.0.1', callback as () => void))
    await callbackError((callback) => connected.send('connected', callback))
    await expect.poll(() => received.length).toBe(4)
    expect(received.sort()).toEqual(['connected', 'to an address', 'to localhost', 'with no address'])
    expect(blocked).toEqual([])
  })
})

describe('DNS', () => {
  it('refuses a lookup of a host name, by callback (after lookup has returned), by promise and through a named import', async () => {
    const blocked: string[] = []
    guard((target) => blocked.push(target))
    const events: unknown[] = []
    dns.lookup('example.com', (error) => events.push(error))
    events.push('returned')
    await expect.poll(() => events.length).toBe(2)
    expect(events).toEqual(['returned', expect.objectContaining({ message: 'Network access is disabled in tests: example.com (DNS lookup)', code: 'ENETUNREACH', hostname: 'example.com' })])
    await expect(dns.promises.lookup('example.com', { all: true })).rejects.toThrow('Network access is disabled in tests: example.com (DNS lookup)')
    const named = await callbackError((callback) => lookup('api.example.com', { family: 4 }, callback))
    expect(named?.message).toBe('Network access is disabled in tests: api.example.com (DNS lookup)')
    expect(blocked).toEqual(['example.com (DNS lookup)', 'example.com (DNS lookup)', 'api.example.com (DNS lookup)'])
  })

  it('refuses every resolver query, even one for localhost: a query is a packet to the DNS server', async () => {
    guard()
    const errors = await Promise.all([
      callbackError((callback) => dns.resolve4('example.com', callback)),
      callbackError((callback) => dns.resolve('example.com', 'MX', callback)),
      callbackError((callback) => dns.reverse('192.0.2.1', callback)),
      callbackError((callback) => new dns.Resolver().resolveSrv('_sip._tcp.example.com', callback)),
      dns.promises.resolve6('localhost').then(() => null, (error: Error) => error),
      new dns.promises.Resolver().resolveTxt('example.com').then(() => null, (error: Error) => error),
    ])
    expect(errors.map((error) => error?.message)).toEqual([
      'Network access is disabled in tests: example.com (DNS resolve4)',
      'Network access is disabled in tests: example.com (DNS resolve)',
      'Network access is disabled in tests: 192.0.2.1 (DNS reverse)',
      'Network access is disabled in tests: _sip._tcp.example.com (DNS resolveSrv)',
      'Network access is disabled in tests: localhost (DNS resolve6)',
      'Network access is disabled in tests: example.com (DNS resolveTxt)',
    ])
  })

  it('refuses a reverse lookup of an address beyond loopback', async () => {
    guard()
    const error = await callbackError((callback) => dns.lookupService('192.0.2.1', 22, callback))
    expect(error?.message).toBe('Network access is disabled in tests: 192.0.2.1:22 (DNS lookupService)')
    await expect(dns.promises.lookupService('10.0.0.1', 80)).rejects.toThrow('Network access is disabled in tests: 10.0.0.1:80 (DNS lookupService)')
  })

  it('lets through what sends no query: localhost, an address, and Node’s own checks of the arguments', async () => {
    const blocked: string[] = []
    guard((target) => blocked.push(target))
    expect(await dns.promises.lookup('localhost', { family: 4 })).toEqual({ address: '127.0.0.1', family: 4 })
    expect(await dns.promises.lookup('192.0.2.1')).toEqual({ address: '192.0.2.1', family: 4 })
    expect(await dns.promises.lookupService('127.0.0.1', 22)).toMatchObject({ hostname: 'localhost' })
    expect(() => dns.lookup(42 as never, () => {})).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }))
    expect(() => dns.resolve4('example.com', undefined as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }))
    expect(blocked).toEqual([])
  })
})

describe('worker threads', () => {
  it('refuses to start a Worker the guard cannot follow: here the guard is TypeScript, which a worker cannot import', () => {
    guard()
    const started: unknown[] = []
    const code = 'require("node:worker_threads").parentPort.postMessage("started")'
    expect(() => new workerThreads.Worker(code, { eval: true }).on('message', (message) => started.push(message))).toThrow(
      `Network access is disabled in tests: a Worker (the network guard cannot follow it into the thread: ${new URL('../../src/isolation/network-guard.ts', import.meta.url).pathname} is not JavaScript a worker can import)`,
    )
    expect(started).toEqual([])
  })
})

describe('vm contexts', () => {
  // A context shares this thread's builtins: what its code reaches of net or dns is what the guard patched.
  it('refuses a connection from code in a new context, given require or importing node:net itself', async () => {
    guard()
    const connect = (net: typeof import('node:net')) =>
      new Promise((resolve) => net.connect(443, '192.0.2.1').on('error', (error) => resolve(error.message)).on('connect', () => resolve('connected')))
    const given = vm.runInNewContext(`connect(require('node:net'))`, { connect, require: createRequire(import.meta.url) }) as Promise<string>
    const imported = vm.runInNewContext(`import('node:net').then(connect)`, { connect }, { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }) as Promise<string>
    const here = vm.runInThisContext(`(connect, net) => connect(net)`) as (c: typeof connect, n: typeof net) => Promise<string>
    expect(await Promise.all([given, imported, here(connect, net)])).toEqual(Array(3).fill('Network access is disabled in tests: 192.0.2.1:443'))
  })
})

describe('two copies of the guard module', () => {
  it('a function taken from dns under the first copy is guarded while the second copy holds the guard', async () => {
    const releaseFirst = guard()
    // As `const { lookup } = require('node:dns')` in a CommonJS module loaded while the first copy held the guard.
    const taken = dns.lookup
    releaseFirst()
    vi.resetModules()
    const second = (await import('../../src/isolation/network-guard.js')) as { guardNetwork: typeof guardNetwork }
    expect(second.guardNetwork).not.toBe(guardNetwork)
    releases.push(second.guardNetwork())
    const error = await callbackError((callback) => taken('example.com', callback))
    expect(error?.message).toBe('Network access is disabled in tests: example.com (DNS lookup)')
  })

  it('each copy takes its own patches off when its own last guard is released, whatever the other holds', async () => {
    const found = dns.lookup
    const releaseFirst = guard()
    vi.resetModules()
    const second = (await import('../../src/isolation/network-guard.js')) as { guardNetwork: typeof guardNetwork }
    second.guardNetwork()()
    expect(dns.lookup).not.toBe(found)
    releaseFirst()
    await afterLinger()
    expect(dns.lookup).toBe(found)
  })
})

describe('releasing', () => {
  it('restores exactly what each patch replaced, and nothing is left patched, a moment after the last release', async () => {
    const owners = {
      'net.Socket.prototype': net.Socket.prototype,
      'dgram.Socket.prototype': dgram.Socket.prototype,
      dns,
      'dns.promises': dns.promises,
      'dns.Resolver.prototype': dns.Resolver.prototype,
      'dns.promises.Resolver.prototype': dns.promises.Resolver.prototype,
      worker_threads: workerThreads,
    }
    const describeAll = () => Object.entries(owners).map(([name, owner]) => [name, Object.getOwnPropertyDescriptors(owner)])
    const before = describeAll()
    const release = guard()
    expect(describeAll()).not.toEqual(before)
    release()
    await afterLinger()
    expect(describeAll()).toEqual(before)
  })
})
