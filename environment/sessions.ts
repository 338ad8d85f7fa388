// Sessions created in a test are disposed when it ends; those created outside a test, after the file.
import { AsyncLocalStorage } from 'node:async_hooks'
import { aroundEach, onTestFinished, type TestContext } from 'vitest'
import { createTestSession as createSession, type TestSession, type TestSessionOptions } from '../src/session/create.js'
import { globalSlot } from '../src/shared/global-slot.js'
import { withDefaults } from './defaults.js'

// Sessions created outside a test, disposed at the end of the file.
const fileSessions = globalSlot('file-sessions', () => new Set<TestSession>())

// The concurrent test whose body (or fixtures) is running in this async context: in test.concurrent,
// Vitest's own notion of the current test is whichever test started last. Only concurrent tests enter
// it: before Node 24 an active AsyncLocalStorage slows every promise of the process (about 9 % of a
// session on Node 20, 15 % on Node 22), and a sequential test is always Vitest's current one.
const concurrentTest = globalSlot('concurrent-test', () => ({
  storage: new AsyncLocalStorage<Pick<TestContext, 'onTestFinished'>>(),
  running: 0,
}))

/** Registered by the setup file: each concurrent test runs inside its own context, which createTestSession reads. */
export function trackRunningTests(): void {
  // Vitest reads the fixtures a hook needs from its destructuring: this one needs none.
  aroundEach(async (runTest, { task, onTestFinished }) => {
    if (!task.concurrent) return runTest()
    const tracked = concurrentTest.get()
    tracked.running++
    try {
      await tracked.storage.run({ onTestFinished }, runTest)
    } finally {
      // The last concurrent test to end turns the storage off again, and with it the promise hooks.
      if (--tracked.running === 0) tracked.storage.disable()
    }
  })
}

/** Ends a test's session: an unhandled call the test never awaited (a timer, a fire-and-forget turn) still fails it. */
export async function endSession(t: TestSession): Promise<void> {
  try {
    t.verify()
  } finally {
    await t.dispose()
  }
}

/** createTestSession with the file's defaults, disposed by the harness when the test (or file) ends. */
export async function createTestSession(options: TestSessionOptions = {}): Promise<TestSession> {
  const t = await createSession(withDefaults(options))
  const end = () => endSession(t)
  try {
    ;(concurrentTest.get().storage.getStore()?.onTestFinished ?? onTestFinished)(end)
  } catch {
    // Not inside a test body (a hook or the module itself): keep it for the end of the file.
    fileSessions.get().add(t)
  }
  return t
}

export async function disposeFileSessions(): Promise<void> {
  const sessions = [...fileSessions.get()]
  fileSessions.get().clear()
  await Promise.all(sessions.map((t) => t.dispose()))
}
