// Fails every connection to a non-loopback address, so a test can never reach the real network by accident.
import net from 'node:net'

interface Target {
  host: string
  port: unknown
}

interface Guard {
  onBlocked: ((target: string) => void) | undefined
}

const LOOPBACK = new net.BlockList()
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4')
LOOPBACK.addAddress('::1', 'ipv6')

type Connect = typeof net.Socket.prototype.connect

const guards = new Set<Guard>()
/** The patch on top of the prototype, and the connect it calls through to. */
let patch: { connect: Connect; next: Connect } | undefined

// Each patch calls through to what it replaced, and passes everything while no guard is held, so one
// buried under someone else's patch (and left there by the last release) stays harmless.
function patchConnect(): void {
  const next = net.Socket.prototype.connect
  const connect = function (this: net.Socket, ...args: unknown[]) {
    const target = targetOf(args)
    if (guards.size === 0 || target === undefined || isLoopback(target.host)) {
      return (next as (...args: unknown[]) => net.Socket).apply(this, args)
    }
    block(this, target)
    return this
  } as Connect
  net.Socket.prototype.connect = connect
  patch = { connect, next }
}

/**
 * Makes `net.Socket.prototype.connect` (under http, https, tls, undici and fetch alike) fail any
 * connection to an address other than 127.0.0.0/8, ::1 and `localhost`; unix sockets and pipes pass.
 * A blocked socket fails asynchronously, like an unreachable host: it emits an 'error' with code
 * ENETUNREACH and message `Network access is disabled in tests: <host>:<port>`, and `onBlocked` gets
 * `<host>:<port>`. Host names other than `localhost` are never resolved. Guards nest: the patch stays
 * until every returned release has been called.
 */
export function guardNetwork(onBlocked?: (target: string) => void): () => void {
  const guard: Guard = { onBlocked }
  guards.add(guard)
  // Patched afresh whenever ours is not on top: the prototype may have been replaced or wrapped since.
  if (net.Socket.prototype.connect !== patch?.connect) patchConnect()
  return () => {
    guards.delete(guard)
    if (guards.size > 0 || patch === undefined) return
    if (net.Socket.prototype.connect === patch.connect) net.Socket.prototype.connect = patch.next
    patch = undefined
  }
}

// The same reading of connect's overloads as Node's own: (options), (path), (port, host?), or net.connect's pre-normalized [options, callback].
function targetOf(args: readonly unknown[]): Target | undefined {
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0]
  if (typeof first === 'object' && first !== null) {
    const options = first as { path?: unknown; host?: unknown; port?: unknown }
    if (options.path) return undefined
    return { host: typeof options.host === 'string' && options.host !== '' ? options.host : 'localhost', port: options.port }
  }
  if (typeof first === 'string' && Number.isNaN(Number(first))) return undefined
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: first }
}

function isLoopback(host: string): boolean {
  const address = host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  if (address === 'localhost') return true
  if (net.isIPv4(address)) return LOOPBACK.check(address, 'ipv4')
  if (net.isIPv6(address)) return LOOPBACK.check(address, 'ipv6')
  return false
}

function block(socket: net.Socket, { host, port }: Target): void {
  const where = `${host}:${String(port)}`
  const error = Object.assign(new Error(`Network access is disabled in tests: ${where}`), {
    code: 'ENETUNREACH',
    syscall: 'connect',
    address: host,
    port,
  })
  const reporters = [...guards].map((guard) => guard.onBlocked)
  // Marked as connecting, like a real connect, so writes queue instead of failing with a different error first.
  ;(socket as { connecting: boolean }).connecting = true
  // After I/O, like a real failure, so the caller has attached its 'error' listener by then.
  setImmediate(() => {
    try {
      for (const report of reporters) report?.(where)
    } finally {
      socket.destroy(error)
    }
  })
}
