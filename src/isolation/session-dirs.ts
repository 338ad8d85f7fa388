// The temp dirs of one session: its HOME, and its cwd unless the test gave one, made ahead and removed in
// the background (temp-dirs.ts). Two dirs side by side rather than one of the session's holding both: every
// mkdir and rmdir is kernel work on the disk's metadata, and such a dir would add one of each to a session.
// A restarted session uses the dirs of the one before it: they are removed when the last user lets go.
import { join } from 'node:path'
import { releaseTempDir, takeTempDir } from './temp-dirs.js'

export interface SessionDirs {
  /** `<tmp>/pi-harness-XXXXXX/session-home-XXXXXX`: the session's HOME. */
  readonly home: string
  /** `<home>/.pi/agent`, handed to Pi; made with the home, as Pi makes it on start. */
  readonly agentDir: string
  /** `<tmp>/pi-harness-XXXXXX/session-cwd-XXXXXX`, or the test's own cwd. */
  readonly cwd: string
  /** Whether the cwd was made here (and is removed here). */
  readonly ownsCwd: boolean
  /** The sessions using the dirs; the last to let go removes them. */
  users: number
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

/** One more session uses `dirs`. */
export function shareSessionDirs(dirs: SessionDirs): void {
  dirs.users++
}

/**
 * A session lets go of `dirs`; the last removes them, scheduled, not awaited: `settleTempDirs()` (awaited when
 * a test file ends) waits for it. `owner` names the session in a report of a dir that cannot be removed.
 */
export function releaseSessionDirs(dirs: SessionDirs, owner?: () => string): void {
  if (dirs.users <= 0 || --dirs.users > 0) return
  releaseTempDir(dirs.home, owner, AGENT_DIR)
  if (dirs.ownsCwd) releaseTempDir(dirs.cwd, owner)
}
