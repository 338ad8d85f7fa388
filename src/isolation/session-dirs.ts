// The temp dirs of one session: its HOME, and its cwd unless the test gave one, made ahead and removed in
// the background (temp-dirs.ts). Two dirs side by side rather than one of the session's holding both: every
// mkdir and rmdir is kernel work on the disk's metadata, and such a dir would add one of each to a session.
// A restarted session uses the dirs of the one before it: they are removed when the last user lets go.
//
// Making and removing dirs is the disk's work: on an ext4 disk ten small seeded files take about 2 ms to write
// and remove, whatever writes them, and a home with Pi's agent dir and a cwd about 0.3 ms more of a session's
// wall time and 2 ms of CPU on libuv's threads. A test file's sessions are often made alike (a fixture's
// files, or none), so dirs whose last user left them as they were made are kept, and the next session made
// alike takes them under new names (its old paths gone, as if removed), once they are checked to hold exactly
// what they held when made: otherwise they are removed.
import { join } from 'node:path'
import { keepDirs, takeKeptDirs } from './kept-dirs.js'
import { releaseTempDir, takeTempDir } from './temp-dirs.js'
import { hasShape, shapeOf, type WorldShape } from './world-shape.js'

export interface SessionDirs {
  /** `<tmp>/pi-harness-XXXXXX/session-home-XXXXXX`: the session's HOME. */
  readonly home: string
  /** `<home>/.pi/agent`, handed to Pi; made with the home, as Pi makes it on start. */
  readonly agentDir: string
  /** `<tmp>/pi-harness-XXXXXX/session-cwd-XXXXXX`, or the test's own cwd. */
  readonly cwd: string
  /** Whether the cwd was made here (and is removed here). */
  readonly ownsCwd: boolean
  /** The sessions using the dirs; the last to let go removes them (or keeps them, below). */
  users: number
  /** Dirs made here: the key of their seeds and what they held once made, for the next session made alike. */
  made?: { readonly key: string; readonly shape: WorldShape }
}

const HOME_PREFIX = 'session-home-'
const CWD_PREFIX = 'session-cwd-'
const AGENT_DIR = join('.pi', 'agent')

/** A home with Pi's agent dir in it, and a fresh cwd unless `givenCwd` names the test's own. */
export async function makeSessionDirs(givenCwd: string | undefined): Promise<SessionDirs> {
  // Pi makes its agent dir on start (its auth storage does): an extension may append to a file there at once.
  // Made with the home, ahead of time like it.
  const home = await takeTempDir(HOME_PREFIX, AGENT_DIR)
  let cwd = givenCwd
  try {
    cwd ??= await takeTempDir(CWD_PREFIX)
  } catch (error) {
    releaseTempDir(home, undefined, AGENT_DIR)
    throw error
  }
  return { home, agentDir: join(home, AGENT_DIR), cwd, ownsCwd: givenCwd === undefined, users: 1 }
}

/**
 * Dirs made alike under `key` that a session left as they were made, under new names; undefined when none
 * are kept, or they are not as they were made (then they are removed).
 */
export function takeKeptSessionDirs(key: string): SessionDirs | undefined {
  const taken = takeKeptDirs(key)
  if (taken === undefined) return undefined
  const [home, cwd] = taken.roots as [string, string]
  const dirs: SessionDirs = { home, agentDir: join(home, AGENT_DIR), cwd, ownsCwd: true, users: 1 }
  const shape = taken.about as WorldShape
  if (!hasShape(taken.roots, shape)) {
    releaseSessionDirs(dirs)
    return undefined
  }
  dirs.made = { key, shape }
  return dirs
}

/** `dirs` were just made (and seeded) under `key`: once their last user lets go, kept if they are as now. */
export function keepWhenLeftAsMade(dirs: SessionDirs, key: string): void {
  if (dirs.ownsCwd) dirs.made = { key, shape: shapeOf([dirs.home, dirs.cwd]) }
}

/** One more session uses `dirs`. */
export function shareSessionDirs(dirs: SessionDirs): void {
  dirs.users++
}

/**
 * A session lets go of `dirs`; the last removes them, scheduled, not awaited: `settleTempDirs()` (awaited when
 * a test file ends) waits for it. `owner` names the session in a report of a dir that cannot be removed. Dirs
 * made alike are kept instead, unless a session using them did not end cleanly (`cleanly` false: a handler
 * abandoned, say, which may still hold a file of theirs open): those are never handed to another session.
 */
export function releaseSessionDirs(dirs: SessionDirs, owner?: () => string, cleanly = true): void {
  if (!cleanly) dirs.made = undefined
  if (dirs.users <= 0 || --dirs.users > 0) return
  if (dirs.made !== undefined) {
    const kept = [{ root: dirs.home, prefix: HOME_PREFIX, within: AGENT_DIR }, { root: dirs.cwd, prefix: CWD_PREFIX }]
    return keepDirs(dirs.made.key, kept, dirs.made.shape)
  }
  releaseTempDir(dirs.home, owner, AGENT_DIR)
  if (dirs.ownsCwd) releaseTempDir(dirs.cwd, owner)
}
