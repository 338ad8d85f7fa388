// Waiting for something that may never settle, bounded: the caller decides what a timeout means.

/**
 * `{ value }` when `work` fulfils within `ms`, undefined when it is still pending then; a rejection
 * within `ms` rejects. The timer is cleared either way, so nothing keeps the process waiting.
 */
export async function within<T>(work: Promise<T>, ms: number): Promise<{ value: T } | undefined> {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)))
  try {
    return await Promise.race([work.then((value) => ({ value })), timedOut])
  } finally {
    clearTimeout(timer)
  }
}
