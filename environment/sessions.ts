// Sessions created in a test are disposed when it ends; those created outside a test, after the file.
import { onTestFinished } from 'vitest'
import { createTestSession as createSession, type TestSession, type TestSessionOptions } from '../src/session/create.js'
import { globalSlot } from '../src/shared/global-slot.js'
import { withDefaults } from './defaults.js'

// Sessions created outside a test, disposed at the end of the file.
const fileSessions = globalSlot('file-sessions', () => new Set<TestSession>())

/** createTestSession with the file's defaults, disposed by the harness when the test (or file) ends. */
export async function createTestSession(options: TestSessionOptions = {}): Promise<TestSession> {
  const t = await createSession(withDefaults(options))
  try {
    // An unhandled call the test never awaited (a timer, a fire-and-forget turn) still fails it.
    onTestFinished(async () => {
      try {
        t.verify()
      } finally {
        await t.dispose()
      }
    })
  } catch {
    // Not inside a test (a beforeAll or the module itself): keep it for the end of the file.
    fileSessions.get().add(t)
  }
  return t
}

export async function disposeFileSessions(): Promise<void> {
  const sessions = [...fileSessions.get()]
  fileSessions.get().clear()
  await Promise.all(sessions.map((t) => t.dispose()))
}
