// Setup file: records every socket this test file opens to a non-loopback address (the harness's own
// guard sits above this wrapper while sessions live, so blocked attempts never get here).
import { appendFileSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import { threadId } from 'node:worker_threads'

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+|localhost)$/i

/** Logs the target of a Socket#connect call when it is beyond loopback; returns whether it was. */
export function auditConnect(args: unknown[]): boolean {
  const dir = process.env.PI_NETWORK_AUDIT_DIR
  const first = args[0] as { path?: string; host?: string; port?: number } | number | string
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] as string | undefined }
  if (!dir || ('path' in options && options.path) || typeof options.port === 'string') return false
  const host = (options.host ?? 'localhost').replace(/^\[|\]$/g, '')
  if (LOOPBACK.test(host)) return false
  appendFileSync(join(dir, `${process.pid}-${threadId}.log`), `${host}:${options.port}\n`)
  return true
}

const original = net.Socket.prototype.connect
net.Socket.prototype.connect = function audited(this: net.Socket, ...args: unknown[]) {
  auditConnect(args)
  return (original as (...a: unknown[]) => net.Socket).apply(this, args)
} as typeof original
