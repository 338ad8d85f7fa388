// Sessions created in a test are disposed when it ends; those created outside a test, after the file.
import { onTestFinished } from 'vitest'
import { createTestSession as createSession, type TestSession, type TestSessionOptions } from '../src/session/create.js'
import { withDefaults } from './defaults.js'

const FILE_SESSIONS = Symbol.for('vitest-environment-pi:file-sessions')
type Slot = { [FILE_SESSIONS]?: Set<TestSession> }

function fileSessions(): Set<TestSession> {
  return ((globalThis as Slot)[FILE_SESSIONS] ??= new Set())
}

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
    fileSessions().add(t)
  }
  return t
}

export async function disposeFileSessions(): Promise<void> {
  const sessions = [...fileSessions()]
  fileSessions().clear()
  await Promise.all(sessions.map((t) => t.dispose()))
}
