// The sessions (and mock `pi` executables) of this process not yet disposed. Whoever ends a test file disposes
// those its tests left: a test runner may end its workers without their exit hooks (Vitest's forks get
// SIGTERM, its threads are terminated), and a session never disposed would leave its temp dirs behind.
import { throwAll } from '../shared/errors.js'
import { processSlot } from '../shared/global-slot.js'

const live = processSlot('live-sessions', () => new Set<() => Promise<void>>())

/** Counts a session as live until the returned function is called; `dispose` ends it. */
export function trackLive(dispose: () => Promise<void>): () => void {
  live.get().add(dispose)
  return () => void live.get().delete(dispose)
}

/** Disposes every session still live; once all have ended, rejects with what their disposes threw, if any. */
export async function disposeLiveSessions(): Promise<void> {
  const left = [...live.get()]
  live.get().clear()
  const results = await Promise.allSettled(left.map((dispose) => dispose()))
  throwAll(results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : [])), 'sessions failed to dispose')
}
