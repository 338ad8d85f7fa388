// The guard's patches on sockets: TCP connections (under http, https, tls, undici and fetch alike) and UDP
// datagrams. Each refuses a target beyond loopback before Node resolves or sends anything.
import dgram from 'node:dgram'
import http2 from 'node:http2'
import net from 'node:net'
import { failLater, guards, isLoopback, refuse, type Method, type Site } from './network-policy.js'

interface Target {
  host: string
  port: unknown
  /** The caller's own name resolution (a `lookup` option), which the connection follows instead of DNS. */
  lookup?: LookupFunction
}

type LookupFunction = (hostname: string, options: object, callback: (error: Error | null, address?: unknown, family?: number) => void) => void

export function socketSites(): Site[] {
  return [
    { owner: net.Socket.prototype, key: 'connect', wrap: guardTcpConnect },
    { owner: http2, key: 'connect', wrap: guardHttp2Connect },
    { owner: dgram.Socket.prototype, key: 'send', wrap: (next) => guardUdp(next, 'send', udpSendTarget) },
    { owner: dgram.Socket.prototype, key: 'connect', wrap: (next) => guardUdp(next, 'connect', udpConnectTarget) },
    { owner: dgram.Socket.prototype, key: 'addMembership', wrap: (next) => guardMulticast(next, 'addMembership', 0) },
    { owner: dgram.Socket.prototype, key: 'addSourceSpecificMembership', wrap: (next) => guardMulticast(next, 'addSourceSpecificMembership', 1) },
  ]
}

// A blocked socket fails asynchronously, like an unreachable host, with an 'error' event. A connection that
// resolves its name with a `lookup` of its own (an HTTP interceptor's points every name at loopback) is judged
// by the addresses that lookup gives: DNS asks the network, which the guard refuses, but that lookup need not.
function guardTcpConnect(next: Method): Method {
  return function connect(this: unknown, ...args: unknown[]) {
    const target = guards.size === 0 ? undefined : tcpTarget(args)
    if (target === undefined || isLoopback(target.host)) return next.apply(this, args)
    if (target.lookup) return next.apply(this, withLookup(args, guardLookup(target.lookup, target)))
    const socket = this as net.Socket
    const error = refuse(`${target.host}:${String(target.port)}`, { syscall: 'connect', address: target.host, port: target.port })
    // Marked as connecting, like a real connect, so writes queue instead of failing with a different error first.
    ;(socket as { connecting: boolean }).connecting = true
    failLater(() => socket.destroy(error))
    return socket
  }
}

// HTTP/2 is refused when its session opens: the HTTP interception above the connect patch answers HTTP/1 only,
// and would hold an HTTP/2 connection open waiting for a request it can read. The session fails with an 'error'.
function guardHttp2Connect(next: Method): Method {
  return function connect(this: unknown, ...args: unknown[]) {
    const [authority, options, listener] = typeof args[1] === 'function' ? [args[0], {}, args[1]] : args
    const url = guards.size === 0 ? undefined : authorityOf(authority)
    if (url === undefined || isLoopback(url.hostname)) return next.apply(this, args)
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'http:' ? 80 : 443
    const error = refuse(`${url.hostname}:${port}`, { syscall: 'connect', address: url.hostname, port })
    // Destroyed at once: the session writes its preface as it starts, which would fail first with another error.
    const createConnection = () => new net.Socket().destroy(error)
    return next.call(this, authority, { ...(options as object), createConnection }, ...(listener === undefined ? [] : [listener]))
  }
}

function authorityOf(authority: unknown): URL | undefined {
  try {
    return new URL(String(authority))
  } catch {
    return undefined // left to Node's own argument check
  }
}

// The same reading of connect's overloads as Node's own: (options), (path), (port, host?), or net.connect's pre-normalized [options, callback].
function tcpTarget(args: readonly unknown[]): Target | undefined {
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0]
  if (typeof first === 'object' && first !== null) {
    const options = first as { path?: unknown; host?: unknown; port?: unknown; lookup?: unknown }
    if (options.path) return undefined
    const host = typeof options.host === 'string' && options.host !== '' ? options.host : 'localhost'
    // Node calls a lookup only for a name; an address connects as it is.
    const lookup = typeof options.lookup === 'function' && net.isIP(host) === 0 ? (options.lookup as LookupFunction) : undefined
    return { host, port: options.port, ...(lookup ? { lookup } : {}) }
  }
  if (typeof first === 'string' && Number.isNaN(Number(first))) return undefined
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: first }
}

/** `args` with the options' lookup replaced, in whichever of connect's forms they came. */
function withLookup(args: unknown[], lookup: LookupFunction): unknown[] {
  if (!Array.isArray(args[0])) return [{ ...(args[0] as object), lookup }, ...args.slice(1)]
  // Copied with the symbol Node marks its normalized arguments by.
  const normalized = Object.assign([], args[0]) as unknown[]
  normalized[0] = { ...(normalized[0] as object), lookup }
  return [normalized, ...args.slice(1)]
}

// Passes on what `lookup` resolves when every address is loopback; anything else fails the connection as refused.
function guardLookup(lookup: LookupFunction, target: Target): LookupFunction {
  return (hostname, options, callback) =>
    lookup(hostname, options, (error, address, family) => {
      const addresses = Array.isArray(address) ? address.map((entry: { address?: unknown }) => entry.address) : [address]
      if (error || addresses.every((each) => typeof each === 'string' && isLoopback(each))) return callback(error, address, family)
      callback(refuse(`${target.host}:${String(target.port)}`, { syscall: 'connect', address: target.host, port: target.port }))
    })
}

// A refused send or connect fails as a failed DNS lookup of its address would: to the callback, else as an 'error' event.
function guardUdp(next: Method, syscall: string, targetOf: (socket: dgram.Socket, args: unknown[]) => Target | undefined): Method {
  return function udp(this: unknown, ...args: unknown[]) {
    const socket = this as dgram.Socket
    const target = guards.size === 0 ? undefined : targetOf(socket, args)
    if (target === undefined || isLoopback(target.host)) return next.apply(this, args)
    const error = refuse(`${target.host}:${String(target.port)} (UDP)`, { syscall, address: target.host, port: target.port })
    const callback = args.findLast((arg) => typeof arg === 'function') as ((error: Error) => void) | undefined
    failLater(() => (callback ? callback(error) : socket.emit('error', error)))
    return undefined
  }
}

// send(msg, [offset, length,] port, [address,] [callback]) read as Node reads it; no address means loopback.
// A connected socket sends to the address it connected to.
function udpSendTarget(socket: dgram.Socket, args: unknown[]): Target | undefined {
  const remote = remoteOf(socket)
  if (remote) return { host: remote.address, port: remote.port }
  let [, offset, length, port, address] = args
  if (!(address || (port && typeof port !== 'function'))) [port, address] = [offset, length]
  return { host: typeof address === 'string' && address !== '' ? address : 'localhost', port }
}

function udpConnectTarget(_socket: dgram.Socket, [port, address]: unknown[]): Target {
  return { host: typeof address === 'string' && address !== '' ? address : 'localhost', port }
}

function remoteOf(socket: dgram.Socket): net.AddressInfo | undefined {
  try {
    return socket.remoteAddress()
  } catch {
    return undefined
  }
}

// Joining a group sends a membership report on the network; it fails synchronously, as Node's own join does.
function guardMulticast(next: Method, syscall: string, groupAt: number): Method {
  return function join(this: unknown, ...args: unknown[]) {
    if (guards.size === 0) return next.apply(this, args)
    throw refuse(`${String(args[groupAt])} (UDP multicast)`, { syscall, address: args[groupAt] })
  }
}
