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

const original = net.Socket.prototype.connect
net.Socket.prototype.connect = function audited(this: net.Socket, ...args: unknown[]) {
  auditConnect(args)
  return (original as (...a: unknown[]) => net.Socket).apply(this, args)
} as typeof original
