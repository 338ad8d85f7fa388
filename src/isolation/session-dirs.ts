// The temp dirs of one session: one dir holding its HOME and its cwd (used unless the test gave one),
// made ahead and removed in the background (temp-dirs.ts).
import { join } from 'node:path'
import { releaseTempDir, takeTempDir, type TempDirKind } from './temp-dirs.js'

export interface SessionDirs {
  /** `<tmp>/pi-session-XXXXXX`, holding the others. */
  root: string
  /** `<root>/home`: the session's HOME. */
  home: string
  /** `<home>/.pi/agent`, handed to Pi; not created (Pi creates what it writes). */
  agentDir: string
  /** `<root>/cwd`, or undefined when the test gave its own cwd. */
  cwd: string | undefined
}

const SESSION_DIR: TempDirKind = { prefix: 'pi-session-', subdirs: ['cwd', 'home'] }

export async function makeSessionDirs(withCwd: boolean): Promise<SessionDirs> {
  const root = await takeTempDir(SESSION_DIR)
  const home = join(root, 'home')
  return { root, home, agentDir: join(home, '.pi', 'agent'), cwd: withCwd ? join(root, 'cwd') : undefined }
}

/** Scheduled, not awaited: `settleTempDirs()` (awaited when a test file ends) waits for it. */
export function removeSessionDirs({ root }: SessionDirs): void {
  releaseTempDir(root, SESSION_DIR)
}
