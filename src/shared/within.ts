// Waiting for something that may never settle, bounded: the caller decides what a timeout means.
import { realClearTimeout, realSetTimeout } from './real-timers.js'

/**
 * `{ value }` when `work` fulfils within `ms`, undefined when it is still pending then; a rejection
 * within `ms` rejects. The timer is cleared either way, so nothing keeps the process waiting.
 */
export function within<T>(work: Promise<T>, ms: number): Promise<{ value: T } | undefined> {
  // Two promises, where an async function racing a timer's promise takes seven: every session waits three
  // times (its extensions' load, its dispose twice), and before Node 24 each promise pays for the session
  // context's promise hook.
  return new Promise((resolve, reject) => {
    const timer = realSetTimeout(resolve, ms, undefined)
    work.then(
      (value) => {
        realClearTimeout(timer)
        resolve({ value })
      },
      (error: unknown) => {
        realClearTimeout(timer)
        reject(error)
      },
    )
  })
}
