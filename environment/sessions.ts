// Sessions created in a test are disposed when it ends; those created outside a test stay live until the file
// ends, when setup.ts disposes every session still live (src/session/live-sessions.ts).
import { onTestFinished } from 'vitest'
import { describeRunning } from '../src/session/activity.js'
import { createTestSession as createSession, type TestSession, type TestSessionOptions } from '../src/test-session.js'
import { closeLateWork, nameSession } from '../src/session/late-work.js'
import { messageOf } from '../src/shared/errors.js'
import { attachSession, type EndingTest } from './attach.js'
import { attachOptionsOf, type SessionAttachOptions } from './attach-options.js'
import { withDefaults } from './defaults.js'
import { currentTest } from './running-tests.js'

export { testName } from './running-tests.js'


/** What `t` was doing when the test was aborted (Vitest aborts its signal when the test times out). */
export type AbortSnapshot = () => string | undefined

/**
 * Snapshots, at the moment `signal` aborts, what `t` (called `name` in the message) was running; the
 * returned function gives that message, or undefined when the test was not waiting for `t`.
 */
export function watchAbort(t: TestSession, signal: AbortSignal, name: string): AbortSnapshot {
  let message: string | undefined
  const snapshot = () => {
    const running = describeRunning(t)
    if (running !== undefined) message = `${abortReason(signal)} while ${name} was in ${running}.`
  }
  const watchers = abortWatchers(signal)
  watchers.add(snapshot)
  return () => {
    watchers.delete(snapshot)
    return message
  }
}

// One 'abort' listener per test, however many sessions it has: an eleventh listener on one signal makes
// Node print a MaxListenersExceededWarning.
const watchersOf = new WeakMap<AbortSignal, Set<() => void>>()
function abortWatchers(signal: AbortSignal): Set<() => void> {
  let watchers = watchersOf.get(signal)
  if (watchers === undefined) {
    const all = (watchers = new Set())
    watchersOf.set(signal, all)
    signal.addEventListener('abort', () => all.forEach((snapshot) => snapshot()), { once: true })
  }
  return watchers
}

/**
 * A session that finished starting after its test was aborted (it timed out meanwhile) would be ended by
 * no one: it is disposed at once, and the late caller gets an error saying so.
 */
export async function refuseIfAborted(t: TestSession, signal: AbortSignal, name: string): Promise<void> {
  if (!signal.aborted) return
  await t.dispose().catch(() => {})
  throw new Error(`${name} finished starting after the test ended (${abortReason(signal)}); it was disposed at once`)
}

// The reason is Vitest's own error: "Test timed out in 500ms.\nIf this is a long-running test, …"
const abortReason = (signal: AbortSignal) => messageOf(signal.reason).split('\n')[0]!.replace(/\.$/, '')

/** `extensions: ./a.ts, <inline:2>`, or `no extensions`: how a message tells a test's sessions apart. */
export function extensionsOf(options: TestSessionOptions): string {
  const names = (options.extensions ?? []).map((entry, index) => (typeof entry === 'string' ? entry : `<inline:${index + 1}>`))
  return names.length > 0 ? `extensions: ${names.join(', ')}` : 'no extensions'
}

/**
 * Ends a test's session: what it was still running when the test timed out, an unhandled call the test
 * never awaited (a timer, a fire-and-forget turn), and a dispose() that could not stop it each fail the test.
 * `attach` is told whether the session's end found a failure, before dispose() takes the session away.
 */
export async function endSession(t: TestSession, atAbort?: AbortSnapshot, attach?: (failed: boolean) => Promise<void>): Promise<void> {
  const failures: unknown[] = []
  const running = atAbort?.()
  if (running !== undefined) failures.push(new Error(running))
  try {
    t.verify()
  } catch (problem) {
    failures.push(problem)
  }
  try {
    await attach?.(failures.length > 0)
  } catch (problem) {
    failures.push(problem)
  }
  try {
    await t.dispose()
  } catch (problem) {
    failures.push(problem)
  }
  // What the session's code does from now on is the file's to report; what it did while ending is the test's.
  const late = closeLateWork(t)
  if (late !== undefined) failures.push(late)
  if (failures.length === 1) throw failures[0]
  if (failures.length > 1) throw new Error(failures.map(messageOf).join('\n'))
}

/**
 * createTestSession with the file's defaults, disposed by the harness when the test (or file) ends, and
 * attached to its test (Pi's HTML export and session file) when the test fails.
 */
export async function createTestSession(options: TestSessionOptions & SessionAttachOptions = {}): Promise<TestSession> {
  const test = currentTest()
  // Numbered in the order the test asked for them, whichever finishes starting first.
  const index = test ? ++test.sessions : 0
  const [withFile, attaching] = attachOptionsOf(withDefaults(options))
  const t = await createSession(withFile)
  const name = `session ${index} of this test (${extensionsOf(withFile)})`
  nameSession(t, test ? `session ${index} of test ${test.name} (${extensionsOf(withFile)})` : `a session created outside a test (${extensionsOf(withFile)})`, test !== undefined)
  if (test) await refuseIfAborted(t, test.signal, name)
  const atAbort = test && watchAbort(t, test.signal, name)
  const where = { options: attaching, label: `session ${index} (${extensionsOf(withFile)})`, slug: `session-${index}` }
  // A test's own onTestFinished hands its context; the one of a file's top level never runs in a test.
  const end = (context?: EndingTest) => endSession(t, atAbort, context && ((failed) => attachSession(t, context, failed, where)))
  endWithRunningTest(end)
  return t
}

/**
 * Runs `end` when the test whose body is running ends, whether it passed or failed. Outside a test body (a
 * hook or the module itself) nothing is registered: what `end` ends stays until the file ends (setup.ts).
 */
export function endWithRunningTest(end: (context?: EndingTest) => unknown): void {
  try {
    ;(currentTest()?.onTestFinished ?? onTestFinished)(end as () => void)
  } catch {
    // Not inside a test body.
  }
}
