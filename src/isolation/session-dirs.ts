// The temp dirs of one session: its HOME, and its cwd unless the test gave one, made ahead and removed in
// the background (temp-dirs.ts). Two dirs side by side rather than one of the session's holding both: every
// mkdir and rmdir is kernel work on the disk's metadata, and such a dir would add one of each to a session.
import { join } from 'node:path'
import { releaseTempDir, takeTempDir } from './temp-dirs.js'

export interface SessionDirs {
  /** `<tmp>/pi-harness-XXXXXX/session-home-XXXXXX`: the session's HOME. */
  home: string
  /** `<home>/.pi/agent`, handed to Pi; not created (Pi creates what it writes). */
  agentDir: string
  /** `<tmp>/pi-harness-XXXXXX/session-cwd-XXXXXX`, or undefined when the test gave its own cwd. */
  cwd: string | undefined
}

const HOME_PREFIX = 'session-home-'
const CWD_PREFIX = 'session-cwd-'

export async function makeSessionDirs(withCwd: boolean): Promise<SessionDirs> {
  const home = await takeTempDir(HOME_PREFIX)
  let cwd: string | undefined
  try {
    if (withCwd) cwd = await takeTempDir(CWD_PREFIX)
  } catch (error) {
    releaseTempDir(home)
    throw error
  }
  return { home, agentDir: join(home, '.pi', 'agent'), cwd }
}

/** Scheduled, not awaited: `settleTempDirs()` (awaited when a test file ends) waits for it. */
export function removeSessionDirs({ home, cwd }: SessionDirs, owner?: () => string): void {
  releaseTempDir(home, owner)
  if (cwd !== undefined) releaseTempDir(cwd, owner)
}
