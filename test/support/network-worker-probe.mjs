// A worker thread that tries to reach beyond loopback over the floor, and reports each error it got, what
// reached the floor, its execArgv, and the same from a Worker it starts itself (one level down).
import dgram from 'node:dgram'
import dns from 'node:dns'
import net from 'node:net'
import { Worker, parentPort, workerData } from 'node:worker_threads'
import { layFloor } from './network-floor.mjs'

const floor = await layFloor()
// The message of the error a call fails with, by callback, event or throw.
const errorOf = (start) =>
  new Promise((resolve) => {
    const done = (error) => resolve(error ? error.message : 'no error')
    try {
      start(done)
    } catch (error) {
      done(error)
    }
  })
const udp = dgram.createSocket('udp4')
const messages = [
  await errorOf((done) => net.connect(443, '192.0.2.1').on('error', done).on('connect', () => done())),
  await errorOf((done) => net.connect(443, 'example.com').on('error', done).on('connect', () => done())),
  await errorOf((done) => udp.send('ping', 53, '192.0.2.1', done)),
  await errorOf((done) => dns.lookup('example.com', done)),
  await errorOf((done) => dns.resolve4('example.com', done)),
]
udp.close()
const nested = workerData?.nested
  ? undefined
  : await new Promise((resolve, reject) => new Worker(new URL(import.meta.url), { workerData: { nested: true } }).once('message', resolve).once('error', reject))
parentPort.postMessage({ messages, stopped: floor.stopped, execArgv: process.execArgv, nested })
