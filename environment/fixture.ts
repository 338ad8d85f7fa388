// The session fixture, for users who prefer fixtures: test('...', async ({ session }) => ...).
import { test as base, type TestAPI } from 'vitest'
import { createTestSession as createSession, type TestSession, type TestSessionOptions } from '../src/session/create.js'
import { withDefaults } from './defaults.js'
import { endSession, extensionsOf, refuseIfAborted, watchAbort } from './sessions.js'

export interface PiFixtures {
  /** Options for the `session` fixture; override with test.override({ sessionOptions: {...} }). */
  sessionOptions: TestSessionOptions
  /** A test session built lazily with the file's defaults and `sessionOptions`, disposed after the test. */
  session: TestSession
}

const extend = () =>
  base.extend<PiFixtures>({
    sessionOptions: {},
    // The fixture's own teardown ends the session, so it belongs to this test whatever runs beside it.
    session: async ({ sessionOptions, signal }, use) => {
      const options = withDefaults(sessionOptions)
      const t = await createSession(options)
      const name = `the session fixture (${extensionsOf(options)})`
      await refuseIfAborted(t, signal, name)
      const atAbort = watchAbort(t, signal, name)
      try {
        await use(t)
      } finally {
        await endSession(t, atAbort)
      }
    },
  })

let extended: TestAPI<PiFixtures> | undefined

// Vitest imports this module as the environment, before any suite exists, when test.extend would
// throw; the fixture is built on first use, inside the test file.
export const test = new Proxy(function () {} as unknown as TestAPI<PiFixtures>, {
  apply: (_target, thisArg, args) => Reflect.apply((extended ??= extend()) as never, thisArg, args),
  get: (_target, key) => Reflect.get((extended ??= extend()) as object, key),
})
