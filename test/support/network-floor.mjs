// The floor beneath the network guard in tests: the native TCP and UDP handles, the resolver's queries and
// the system's name lookups are replaced by recording stubs. Whatever gets past the guard lands here and is
// recorded instead of sent, so a test of the guard sends nothing off this machine even if the guard
// regressed; loopback passes. Plain JavaScript, so that a worker thread can load it too (`--import`).
import dgram from 'node:dgram'
import dns from 'node:dns'
import { syncBuiltinESMExports } from 'node:module'
import net from 'node:net'
import os from 'node:os'

const ENETUNREACH = -os.constants.errno.ENETUNREACH
const LOOPBACK_IP = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/i
const LOOPBACK_NAME = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/i

/** @type {{ stopped: string[], restore: () => void } | undefined} */
let active

// Each stub names what a call would send, or undefined for what passes (loopback, a connected send).
function stubs() {
  const binding = (name) => process.binding(name)
  const { TCP } = binding('tcp_wrap')
  const { UDP } = binding('udp_wrap')
  const cares = binding('cares_wrap')
  const tcp = (args) => (LOOPBACK_IP.test(args[1]) ? undefined : `tcp ${args[1]}:${args[2]}`)
  const udpSend = (args) => (typeof args[3] !== 'number' || LOOPBACK_IP.test(args[4]) ? undefined : `udp ${args[4]}:${args[3]}`)
  const udpConnect = (args) => (LOOPBACK_IP.test(args[0]) ? undefined : `udp ${args[0]}:${args[1]}`)
  const queries = Object.getOwnPropertyNames(cares.ChannelWrap.prototype).filter((key) => /^query|^getHostByAddr$/.test(key))
  return [
    [TCP.prototype, 'connect', tcp],
    [TCP.prototype, 'connect6', tcp],
    [UDP.prototype, 'send', udpSend],
    [UDP.prototype, 'send6', udpSend],
    [UDP.prototype, 'connect', udpConnect],
    [UDP.prototype, 'connect6', udpConnect],
    [UDP.prototype, 'addMembership', (args) => `udp join ${args[0]}`],
    [UDP.prototype, 'addSourceSpecificMembership', (args) => `udp join ${args[1]}`],
    // Every resolver query is a packet to the DNS server, even one for localhost.
    ...queries.map((key) => [cares.ChannelWrap.prototype, key, (args) => `dns ${key} ${args[1]}`]),
    [cares, 'getaddrinfo', (args) => (LOOPBACK_NAME.test(args[1]) ? undefined : `dns getaddrinfo ${args[1]}`)],
    [cares, 'getnameinfo', (args) => (LOOPBACK_IP.test(args[1]) ? undefined : `dns getnameinfo ${args[1]}:${args[2]}`)],
  ]
}

// dns/promises holds its own reference to getaddrinfo and getnameinfo: its lookups are stubbed a layer up,
// which is beneath the guard only when the floor is laid first.
function promiseStubs() {
  const lookup = (args) => (typeof args[0] !== 'string' || LOOPBACK_NAME.test(args[0]) || net.isIP(args[0]) ? undefined : `dns getaddrinfo ${args[0]}`)
  const lookupService = (args) => (LOOPBACK_IP.test(args[0]) ? undefined : `dns getnameinfo ${args[0]}:${args[1]}`)
  return [
    [dns.promises, 'lookup', lookup],
    [dns.promises, 'lookupService', lookupService],
  ]
}

/**
 * Lays the floor (once per thread; a second call returns the first) and checks, with loopback probes
 * only, that the stubs are where Node's own calls land: if they are not, it throws, so that no test
 * relies on a floor that is not there. `stopped` lists what reached the floor beyond loopback.
 * @returns {Promise<{ stopped: string[], restore: () => void }>}
 */
export async function layFloor() {
  if (active) return active
  const stopped = []
  const seen = new Set()
  const restores = []
  const stub = (owner, key, describe, fail) => {
    const original = owner[key]
    owner[key] = function (...args) {
      const what = describe(args)
      seen.add(key)
      if (what === undefined) return original.apply(this, args)
      stopped.push(what)
      return fail(what)
    }
    restores.push(() => (owner[key] = original))
  }
  for (const [owner, key, describe] of stubs()) stub(owner, key, describe, () => ENETUNREACH)
  for (const [owner, key, describe] of promiseStubs()) stub(owner, key, describe, (what) => Promise.reject(Object.assign(new Error(`stopped by the floor: ${what}`), { code: 'ENETUNREACH' })))
  syncBuiltinESMExports()
  const floor = {
    stopped,
    restore() {
      for (const restore of restores.reverse()) restore()
      syncBuiltinESMExports()
      active = undefined
    },
  }
  try {
    await probe(seen)
  } catch (error) {
    floor.restore()
    throw error
  }
  return (active = floor)
}

/** The floor laid in this thread, if any. */
export function currentFloor() {
  return active
}

async function probe(seen) {
  const server = net.createServer((socket) => socket.destroy())
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const udp = dgram.createSocket('udp4')
  try {
    const { port } = server.address()
    await new Promise((resolve, reject) => net.connect(port, '127.0.0.1', resolve).on('error', reject))
    await new Promise((resolve, reject) => udp.send('probe', port, '127.0.0.1', (error) => (error ? reject(error) : resolve())))
    await new Promise((resolve, reject) => dns.lookup('localhost', (error) => (error ? reject(error) : resolve())))
  } finally {
    udp.close()
    server.close()
  }
  const handle = new dns.Resolver()._handle
  const missing = [
    seen.has('connect') ? undefined : 'TCP connect',
    seen.has('send') ? undefined : 'UDP send',
    seen.has('getaddrinfo') ? undefined : 'getaddrinfo',
    Object.getPrototypeOf(handle) === process.binding('cares_wrap').ChannelWrap.prototype ? undefined : 'resolver queries',
  ].filter(Boolean)
  if (missing.length > 0) throw new Error(`The network floor is not beneath Node's own calls for: ${missing.join(', ')}; refusing to test the guard without it`)
}
