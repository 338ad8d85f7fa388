// Which test is running, for createTestSession: apart from sessions.ts so that the setup file, which
// registers the tracking for every file, does not load Pi (sessions.ts does) in a file that makes no session.
import { AsyncLocalStorage } from 'node:async_hooks'
import { aroundEach, type TestContext } from 'vitest'
import { globalSlot } from '../src/shared/global-slot.js'

/** The test whose body is running: its name, how its sessions end, its abort signal, how many sessions it made. */
interface RunningTest extends Pick<TestContext, 'onTestFinished' | 'signal'> {
  name: string
  sessions: number
}

// The test whose body (or fixtures) is running. A sequential test is the only one running; concurrent
// ones are told apart by an async context, as Vitest's own notion of the current test is whichever
// started last. Only concurrent tests enter it: before Node 24 each active AsyncLocalStorage adds to the
// cost of every promise of the process (one costs about 9 % of a session on Node 20, 15 % on Node 22;
// the session context, src/shared/session-context.ts, is one already).
const runningTests = globalSlot('running-tests', () => ({
  sequential: undefined as RunningTest | undefined,
  concurrent: new AsyncLocalStorage<RunningTest>(),
  concurrentCount: 0,
}))

export const currentTest = (): RunningTest | undefined => runningTests.get().concurrent.getStore() ?? runningTests.get().sequential

/** Registered by the setup file: which test is running, for createTestSession. */
export function trackRunningTests(): void {
  // Vitest reads the fixtures a hook needs from its destructuring: these are the context's own, no fixture.
  aroundEach(async (runTest, { task, onTestFinished, signal }) => {
    const tests = runningTests.get()
    const test: RunningTest = { name: testName(task), onTestFinished, signal, sessions: 0 }
    if (!task.concurrent) {
      tests.sequential = test
      try {
        return await runTest()
      } finally {
        if (tests.sequential === test) tests.sequential = undefined
      }
    }
    tests.concurrentCount++
    try {
      return await tests.concurrent.run(test, runTest)
    } finally {
      // The last concurrent test to end turns this context off again.
      if (--tests.concurrentCount === 0) tests.concurrent.disable()
    }
  })
}

/** `"suite > test"`, quoted, as messages name a test. */
export const testName = (task: { name: string; fullTestName?: string }) => JSON.stringify(task.fullTestName ?? task.name)
