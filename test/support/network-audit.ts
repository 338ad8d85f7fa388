// Setup file: records every socket this test file opens to a non-loopback address (the harness's own
// guard sits above this wrapper while sessions live, so blocked attempts never get here).
import { appendFileSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import { threadId } from 'node:worker_threads'

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+|localhost)$/i

/** The `host:port` a Socket#connect call would reach when it is beyond loopback; undefined for loopback and local sockets. */
export function connectTarget(args: unknown[]): string | undefined {
  // net.connect, tls.connect and http hand Socket#connect one pre-normalized array: [options, callback].
  const first = (Array.isArray(args[0]) ? args[0][0] : args[0]) as { path?: string; host?: string; port?: number } | number | string
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] as string | undefined }
  if (('path' in options && options.path) || typeof options.port === 'string') return undefined
  const host = (options.host ?? 'localhost').replace(/^\[|\]$/g, '')
  return LOOPBACK.test(host) ? undefined : `${host}:${options.port}`
}

/** Logs the target of a Socket#connect call when it is beyond loopback; returns whether it was. */
export function auditConnect(args: unknown[]): boolean {
  const dir = process.env.PI_NETWORK_AUDIT_DIR
  const target = dir ? connectTarget(args) : undefined
  if (!dir || target === undefined) return false
  appendFileSync(join(dir, `${process.pid}-${threadId}.log`), `${target}\n`)
  return true
}

type Lookup = (hostname: string, options: object, callback: (error: Error | null, address?: unknown, family?: number) => void) => void

/**
 * A connection that resolves its name with a `lookup` of its own (an HTTP interceptor's points every name at
 * loopback) reaches the addresses that lookup gives: `args` with the lookup wrapped to log any beyond loopback.
 */
export function auditLookup(args: unknown[]): unknown[] {
  const normalized = Array.isArray(args[0])
  const options = (normalized ? (args[0] as unknown[])[0] : args[0]) as { lookup?: unknown; host?: string; port?: number } | null
  if (typeof options !== 'object' || options === null || typeof options.lookup !== 'function') return args
  const lookup = options.lookup as Lookup
  const audited: Lookup = (hostname, lookupOptions, callback) =>
    lookup(hostname, lookupOptions, (error, address, family) => {
      const addresses = Array.isArray(address) ? address.map((entry: { address: string }) => entry.address) : [address]
      for (const each of addresses) if (typeof each === 'string') auditConnect([{ host: each, port: options.port }])
      callback(error, address, family)
    })
  const replaced = { ...options, lookup: audited }
  if (!normalized) return [replaced, ...args.slice(1)]
  // Copied with the symbol Node marks its normalized arguments by.
  const copy = Object.assign([], args[0]) as unknown[]
  copy[0] = replaced
  return [copy, ...args.slice(1)]
}

const original = net.Socket.prototype.connect
net.Socket.prototype.connect = function audited(this: net.Socket, ...args: unknown[]) {
  const resolved = auditLookup(args)
  if (resolved === args) auditConnect(args)
  return (original as (...a: unknown[]) => net.Socket).apply(this, resolved)
} as typeof original
