// The audit (test/support/network-audit*.ts) fails the whole run if any file opens a socket beyond
// loopback; this file shows it would notice one, and that sessions refuse to open one. Beneath the guard
// lies the floor (test/support/network-floor.mjs): what a regressed guard let through would be stopped
// and recorded there, never sent.
import dgram from 'node:dgram'
import dns from 'node:dns'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { once } from 'node:events'
import http2 from 'node:http2'
import net from 'node:net'
import { join } from 'node:path'
import { threadId } from 'node:worker_threads'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestSession } from '../src/index.js'
import { auditConnect } from './support/network-audit.js'
import { layFloor, type Floor } from './support/network-floor.mjs'

it('is audited: every Socket#connect goes through the audit, which records targets beyond loopback', () => {
  expect(net.Socket.prototype.connect.name).toBe('audited')
  const dir = process.env.PI_NETWORK_AUDIT_DIR!
  // The arguments of a connect call, checked without connecting (192.0.2.1 is TEST-NET-1).
  expect(auditConnect([{ host: '127.0.0.1', port: 80 }])).toBe(false)
  expect(auditConnect([{ path: '/tmp/x.sock' }])).toBe(false)
  expect(auditConnect([9, '192.0.2.1'])).toBe(true)
  // What net.connect, tls.connect and http pass: the options pre-normalized into an array.
  expect(auditConnect([[{ port: 10, host: '192.0.2.1' }, null]])).toBe(true)
  expect(auditConnect([[{ port: 11, host: '127.0.0.1' }, null]])).toBe(false)
  const log = join(dir, `${process.pid}-${threadId}.log`)
  expect(readdirSync(dir)).toContain(`${process.pid}-${threadId}.log`)
  expect(readFileSync(log, 'utf8')).toBe('192.0.2.1:9\n192.0.2.1:10\n')
  // Forget these deliberate entries (this file opens nothing else), so that the audit judges the rest of the suite.
  rmSync(log)
})

describe('while a session lives, nothing leaves by', () => {
  let floor: Floor
  beforeAll(async () => {
    floor = await layFloor()
  })
  afterAll(() => floor.restore())

  // Beneath the HTTP interception: a connection that turns out not to carry HTTP (its client writes something
  // else, or reads first, waiting for the server to speak) goes on to the guard.
  it('TCP: the connection is refused before any packet leaves, whether its client writes or reads first', async () => {
    const t = await createTestSession()
    const refusal = (use: (socket: net.Socket) => void) =>
      new Promise<Error>((resolve) => {
        const socket = net.connect(443, 'example.com').on('error', resolve)
        use(socket)
      })
    const errors = await Promise.all([refusal((socket) => socket.write('PING\r\n')), refusal((socket) => socket.on('data', () => {}))])
    expect(errors.map((error) => error.message)).toEqual(['Network access is disabled in tests: example.com:443', 'Network access is disabled in tests: example.com:443'])
    await t.dispose()
    expect(floor.stopped).toEqual([])
  })

  it('HTTP/2, which the HTTP rules do not answer: the session fails at once', async () => {
    const t = await createTestSession()
    const session = http2.connect('https://api.test')
    const request = session.request({ ':path': '/' })
    const errors = await Promise.all([once(session, 'error'), once(request, 'error')])
    expect(errors.map(([error]) => (error as Error).message)).toEqual(['Network access is disabled in tests: api.test:443', 'Network access is disabled in tests: api.test:443'])
    await t.dispose()
    expect(floor.stopped).toEqual([])
  })

  it('UDP: the datagram is refused, and its host name never resolved', async () => {
    const t = await createTestSession()
    const socket = dgram.createSocket('udp4')
    const errors = await Promise.all([
      new Promise<Error | null>((resolve) => socket.send('ping', 53, '192.0.2.1', resolve)),
      new Promise<Error | null>((resolve) => socket.send('ping', 123, 'time.example.com', resolve)),
    ])
    socket.close()
    expect(errors.map((error) => error?.message)).toEqual([
      'Network access is disabled in tests: 192.0.2.1:53 (UDP)',
      'Network access is disabled in tests: time.example.com:123 (UDP)',
    ])
    await t.dispose()
    expect(floor.stopped).toEqual([])
  })

  it('DNS: queries and lookups of any name but localhost are refused', async () => {
    const t = await createTestSession()
    await expect(dns.promises.resolve4('example.com')).rejects.toThrow('Network access is disabled in tests: example.com (DNS resolve4)')
    await expect(dns.promises.lookup('example.com')).rejects.toThrow('Network access is disabled in tests: example.com (DNS lookup)')
    const error = await new Promise<Error | null>((resolve) => dns.resolveTxt('example.com', (error) => resolve(error)))
    expect(error?.message).toBe('Network access is disabled in tests: example.com (DNS resolveTxt)')
    expect(await dns.promises.lookup('localhost', { family: 4 })).toEqual({ address: '127.0.0.1', family: 4 })
    await t.dispose()
    expect(floor.stopped).toEqual([])
  })
})
