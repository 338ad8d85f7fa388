// The session fixture, for users who prefer fixtures: test('...', async ({ session }) => ...).
import { test as base, TestRunner, type TestAPI } from 'vitest'
import { createTestSession as createSession, type TestSession, type TestSessionOptions } from '../src/session/create.js'
import { isObject } from '../src/session/options.js'
import { withDefaults } from './defaults.js'
import { attachSession } from './attach.js'
import { attachOptionsOf, type SessionAttachOptions } from './attach-options.js'
import { nameSession } from '../src/session/late-work.js'
import { endSession, extensionsOf, refuseIfAborted, testName, watchAbort } from './sessions.js'

export interface PiFixtures {
  /** Options for the `session` fixture; test.override({ sessionOptions: {...} }) merges over the enclosing suite's. */
  sessionOptions: TestSessionOptions & SessionAttachOptions
  /** A test session built lazily with the file's defaults and `sessionOptions`, disposed after the test. */
  session: TestSession
}

const extend = () =>
  base.extend<PiFixtures>({
    sessionOptions: {},
    // The fixture's own teardown ends the session, so it belongs to this test whatever runs beside it.
    session: async ({ sessionOptions, signal, task, annotate }, use) => {
      const [options, attaching] = attachOptionsOf(withDefaults(sessionOptions))
      const t = await createSession(options)
      const name = `the session fixture (${extensionsOf(options)})`
      nameSession(t, `the session fixture of test ${testName(task)} (${extensionsOf(options)})`, true)
      await refuseIfAborted(t, signal, name)
      const atAbort = watchAbort(t, signal, name)
      const where = { options: attaching, label: name, slug: 'session-fixture' }
      try {
        await use(t)
      } finally {
        await endSession(t, atAbort, (failed) => attachSession(t, { task, annotate }, failed, where))
      }
    },
  })

/**
 * `over` merged over `under`: plain objects (mockUI, mockTools, mocks, flags) key by key, all the way down;
 * anything else, arrays too (`extensions`, `tools`), replaces what was there.
 */
export function mergeSessionOptions<T>(under: T, over: T): T {
  if (!isObject(under) || !isObject(over)) return over
  const merged: Record<string, unknown> = { ...under }
  for (const [key, value] of Object.entries(over)) merged[key] = mergeSessionOptions(merged[key], value)
  return merged as T
}

// What each suite's test.override({ sessionOptions }) came to, merged over its parents'.
const suiteOptions = new WeakMap<object, TestSessionOptions>()

// Vitest's Suite and File tasks, as far as read here: each suite knows its parent and its file.
type SuiteTask = { suite?: SuiteTask; file?: SuiteTask }

function enclosingOptions(task: SuiteTask): TestSessionOptions {
  for (let suite: SuiteTask | undefined = task; suite; suite = suite.suite ?? (suite.file === suite ? undefined : suite.file)) {
    const options = suiteOptions.get(suite)
    if (options) return options
  }
  return {}
}

/** test.override, with `sessionOptions` merged over the enclosing suite's instead of replacing them. */
function overrideMerging(api: TestAPI<PiFixtures>, args: unknown[]): unknown {
  const [first, second] = args
  const given = isObject(first) && isObject(first.sessionOptions) ? first.sessionOptions : first === 'sessionOptions' && args.length === 2 && isObject(second) ? second : undefined
  if (given === undefined) return Reflect.apply(api.override, api, args)
  // The suite being collected; at a file's top level, the file.
  const collector = TestRunner.getCurrentSuite() as unknown as { suite?: SuiteTask; file: SuiteTask }
  const task = collector.suite ?? collector.file
  // Outside collection (no suite to key by), an override replaces, as Vitest's own does.
  if (typeof task !== 'object' || task === null) return Reflect.apply(api.override, api, args)
  const options = mergeSessionOptions(enclosingOptions(task), given as TestSessionOptions)
  suiteOptions.set(task, options)
  return first === 'sessionOptions' ? api.override('sessionOptions', options) : api.override({ ...(first as object), sessionOptions: options })
}

let extended: TestAPI<PiFixtures> | undefined

// Vitest imports this module as the environment, before any suite exists, when test.extend would
// throw; the fixture is built on first use, inside the test file.
export const test = new Proxy(function () {} as unknown as TestAPI<PiFixtures>, {
  apply: (_target, thisArg, args) => Reflect.apply((extended ??= extend()) as never, thisArg, args),
  get: (_target, key) => {
    const api = (extended ??= extend())
    if (key === 'override') return (...args: unknown[]) => overrideMerging(api, args)
    return Reflect.get(api as object, key)
  },
})
