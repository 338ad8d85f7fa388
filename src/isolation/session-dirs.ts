// The temp dirs of one session: one dir holding its HOME and, unless the test gave one, its cwd.
import { mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

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

/** Two or three mkdir calls: the root, its home, its cwd when `withCwd`. */
export function makeSessionDirs(withCwd: boolean): SessionDirs {
  const root = mkdtempSync(join(tmpdir(), 'pi-session-'))
  const home = join(root, 'home')
  const cwd = withCwd ? join(root, 'cwd') : undefined
  try {
    mkdirSync(home)
    if (cwd !== undefined) mkdirSync(cwd)
  } catch (error) {
    rmSync(root, { recursive: true, force: true })
    throw error
  }
  return { root, home, agentDir: join(home, '.pi', 'agent'), cwd }
}

/** Usually nothing was written: one rmdir per dir, far cheaper than a recursive removal's walk. */
export function removeSessionDirs({ root, home, cwd }: SessionDirs): void {
  try {
    if (cwd !== undefined) rmdirSync(cwd)
    rmdirSync(home)
    rmdirSync(root)
  } catch {
    rmSync(root, { recursive: true, force: true })
  }
}
