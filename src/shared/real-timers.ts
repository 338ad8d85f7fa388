// The real timer functions, as Node's own module holds them: a test's vi.useFakeTimers() replaces the
// global ones, and the harness's own waits and bounds must never stop with them (Testing Library's
// waitFor keeps the real ones for the same reason).
import * as timers from 'node:timers'

export const { setTimeout: realSetTimeout, clearTimeout: realClearTimeout, setImmediate: realSetImmediate } = timers

/** Resolves on a later turn of the event loop, whatever timers the test has faked. */
export const nextMacrotask = (): Promise<void> => new Promise((resolve) => realSetImmediate(resolve))
