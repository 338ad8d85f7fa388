// Leaves every kind of shared state changed, on purpose. 2-check.spec.ts, run in the same worker
// (isolate: false, one worker), must see none of it. Each test also proves its change took effect.
import { getApiProvider, registerApiProvider, type Api } from '@mariozechner/pi-ai'
import { getOAuthProvider } from '@mariozechner/pi-ai/oauth'
import { initTheme } from '@mariozechner/pi-coding-agent'
import { realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isMainThread, threadId } from 'node:worker_threads'
import { expect, it, vi } from 'vitest'
import { createTestSession, says, when } from 'vitest-environment-pi'
import { findPiLine } from 'vitest-environment-pi/plugin'
import { next } from '../helpers/counter.js'
import { mark, setMark } from '../helpers/marks.js'
import { value } from '../helpers/mocked.js'

vi.mock('../helpers/mocked.js', () => ({ value: 'mocked' }))

const THEME = Symbol.for('@mariozechner/pi-coding-agent:theme')
// 0.73 keeps an extension's provider and OAuth login in pi-ai's process-wide registries; 1.x keeps them
// on the session (and has no OAuth registry).
const PROCESS_WIDE_EXTENSION_PROVIDERS = findPiLine().scope === '@mariozechner'
const global = globalThis as Record<string | symbol, unknown>

mark('order', `pollute@${process.pid}-${threadId};`)

// A session created outside any test is the file's: never disposed here.
const leftOpen = await createTestSession({ extensions: [(pi) => pi.on('session_shutdown', () => mark('shutdown', 'file;'))] })
setMark('session-cwd', leftOpen.cwd)
setMark('shutdown', '')
setMark('interval', '')
setMark('timeout', '')

it('changes process.env: a variable added, one changed, one removed, one stubbed', () => {
  expect(process.env.LEAK_ADDED).toBeUndefined()
  process.env.LEAK_ADDED = 'added'
  process.env.PI_TELEMETRY = 'changed'
  delete process.env.PI_OFFLINE
  vi.stubEnv('LEAK_STUBBED', 'stubbed')
  expect([process.env.LEAK_ADDED, process.env.PI_TELEMETRY, process.env.PI_OFFLINE, process.env.LEAK_STUBBED]).toEqual(['added', 'changed', undefined, 'stubbed'])
})

it('changes globalThis: a global added, one replaced, a symbol, a stub', () => {
  expect(global.leakedGlobal).toBeUndefined()
  global.leakedGlobal = 'leaked'
  globalThis.atob = () => 'leaked'
  global[Symbol.for('leak')] = true
  vi.stubGlobal('leakStubbed', 1)
  expect([global.leakedGlobal, atob('YQ=='), global[Symbol.for('leak')], global.leakStubbed]).toEqual(['leaked', 'leaked', true, 1])
})

it("counts in a local module's state", () => {
  next()
  expect(next()).toBe(2)
})

it("registers a provider in pi-ai's API registry directly", () => {
  registerApiProvider({ api: 'direct-leak' as Api, stream: () => undefined as never, streamSimple: () => undefined as never }, 'direct')
  expect(getApiProvider('direct-leak' as Api)).toBeDefined()
})

it.skipIf(!PROCESS_WIDE_EXTENSION_PROVIDERS)("registers an extension's provider and OAuth login in pi-ai's process-wide registries (0.73 only)", async () => {
  const t = await createTestSession({ extensions: ['./extensions/provider.ts'] })
  expect(t.loadErrors ?? []).toEqual([])
  expect(getApiProvider('leaky-api' as Api)).toBeDefined()
  expect(getOAuthProvider('leaky')).toBeDefined()
})

it("initialises Pi's theme", () => {
  // Sessions may have initialised it already (1.x reads the UI's theme when it binds the UI).
  initTheme('light')
  expect(global[THEME]).toMatchObject({ name: 'light' })
})

it('changes the working directory (forks; worker threads cannot)', () => {
  if (!isMainThread) return
  process.chdir(tmpdir())
  expect(process.cwd()).toBe(realpathSync(tmpdir()))
})

it('adds process listeners', () => {
  process.on('leak-event', function leakedListener() {})
  process.once('beforeExit', function leakedListener() {})
  expect(process.listenerCount('leak-event')).toBe(1)
})

it('leaves a session created in a test undisposed', async () => {
  const t = await createTestSession({ extensions: [(pi) => pi.on('session_shutdown', () => mark('shutdown', 'test;'))] })
  await t.run(when('hi', [says('hello')]))
  setMark('test-session-cwd', t.cwd)
})

it('mocks a local module', () => {
  expect(value).toBe('mocked')
})

it('starts an interval and a timeout, then fakes the timers', () => {
  setInterval(() => mark('interval', 'x'), 5)
  setTimeout(() => mark('timeout', 'x'), 250)
  vi.useFakeTimers()
  expect(vi.isFakeTimers()).toBe(true)
})
