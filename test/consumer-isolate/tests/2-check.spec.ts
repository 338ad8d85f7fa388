// Runs after 1-pollute.spec.ts in the same worker and must see none of its changes. `--mode=reverse` runs
// it first: it then passes on a fresh worker, and 1-pollute must not see its counter. Read at load, before any hook.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { threadId } from 'node:worker_threads'
import { getApiProvider, type Api } from '@mariozechner/pi-ai'
import * as oauth from '@mariozechner/pi-ai/oauth'
import { expect, it, vi } from 'vitest'
import { next } from '../helpers/counter.js'
import { mark, readMark } from '../helpers/marks.js'
import { value } from '../helpers/mocked.js'

mark('order', `check@${process.pid}-${threadId};`)

const global = globalThis as Record<string | symbol, unknown>
const started = performance.now()
const seen = {
  env: [process.env.LEAK_ADDED, process.env.PI_TELEMETRY, process.env.PI_OFFLINE, process.env.LEAK_STUBBED],
  globals: [global.leakedGlobal, atob('YQ=='), global[Symbol.for('leak')], global.leakStubbed],
  counter: next(),
  // 1.x has no OAuth registry (its pi-ai/oauth exports types only).
  providers: [getApiProvider('leaky-api' as Api), getApiProvider('direct-leak' as Api), oauth.getOAuthProvider?.('leaky')],
  builtinProvider: getApiProvider('anthropic-messages'),
  theme: global[Symbol.for('@mariozechner/pi-coding-agent:theme')],
  fakeTimers: vi.isFakeTimers(),
  cwd: process.cwd(),
  listeners: [process.listenerCount('leak-event'), process.listeners('beforeExit').filter((l) => l.name === 'leakedListener').length],
  timeoutMark: readMark('timeout'),
  mocked: value,
}

it('process.env: added, changed, removed and stubbed variables are back', () => {
  expect(seen.env).toEqual([undefined, '0', '1', undefined])
})

it('globalThis: added, replaced, symbol and stubbed globals are back', () => {
  expect(seen.globals).toEqual([undefined, 'a', undefined, undefined])
})

it('a local module starts afresh', () => {
  expect(seen.counter).toBe(1)
})

it("pi-ai's registries hold the built-in providers only", () => {
  expect(seen.providers).toEqual([undefined, undefined, undefined])
  expect(seen.builtinProvider).toBeDefined()
})

it("Pi's theme is not initialised", () => {
  expect(seen.theme).toBeUndefined()
})

it('timers are real', async () => {
  expect(seen.fakeTimers).toBe(false)
  const fired = await Promise.race([new Promise((resolve) => setTimeout(() => resolve('fired'), 1)), sleep(2000, 'stuck')])
  expect(fired).toBe('fired')
})

it('the interval and the timeout the other file started were cleared', async () => {
  const ticks = readMark('interval').length
  // Past the 250 ms timeout, counted from this file's start.
  await sleep(Math.max(60, 300 - (performance.now() - started)))
  expect(readMark('interval').length).toBe(ticks)
  expect([seen.timeoutMark, readMark('timeout')]).toEqual(['', ''])
})

it('the working directory is the project root', () => {
  expect(seen.cwd).toBe(resolve(import.meta.dirname, '..'))
})

it('process listeners the other file added are removed', () => {
  expect(seen.listeners).toEqual([0, 0])
})

it('sessions the other file left are disposed', () => {
  for (const name of ['session-cwd', 'test-session-cwd', 'broken-session-cwd']) {
    const cwd = readMark(name)
    if (cwd) expect(existsSync(cwd), name).toBe(false)
  }
  if (readMark('session-cwd')) expect(readMark('shutdown').split(';').sort()).toEqual(['', 'file', 'test'])
})

it('vi.mock stays in its file', () => {
  expect(seen.mocked).toBe('real')
})
