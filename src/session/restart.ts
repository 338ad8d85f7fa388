// A session started over the home and cwd of an earlier one, as quitting Pi and starting it again: the
// earlier session ends (its session_shutdown fires), its dirs stay for the new one.
import { releaseSessionDirs, shareSessionDirs, type SessionDirs } from '../isolation/session-dirs.js'
import { messageOf } from '../shared/errors.js'
import type { TestSessionHandle } from './options.js'

// By handle: the dirs each session uses, for a restart from it.
const dirsOf = new WeakMap<object, SessionDirs>()

export function rememberDirs(handle: object, dirs: SessionDirs): void {
  dirsOf.set(handle, dirs)
}

/** The dirs `earlier` uses, refused when it is not a session or its dirs are gone with it. */
export function dirsToRestart(earlier: TestSessionHandle): SessionDirs {
  const dirs = dirsOf.get(earlier)
  if (dirs === undefined) throw new TypeError('createTestSession: option "restartFrom" must be a session createTestSession returned, got another object')
  if (dirs.users === 0) {
    throw new Error(
      'createTestSession: option "restartFrom" names a session already disposed, whose home and cwd were removed with it. ' +
        'Pass it before disposing it: createTestSession({ restartFrom: t }) ends t (its session_shutdown fires) and keeps its dirs for the new session.',
    )
  }
  return dirs
}

/** Takes over `earlier`'s dirs and ends it, as Pi quits; the caller releases them when the new session ends. */
export async function takeOver(earlier: TestSessionHandle, dirs: SessionDirs): Promise<void> {
  shareSessionDirs(dirs)
  try {
    await earlier.dispose()
  } catch (error) {
    releaseSessionDirs(dirs)
    throw new Error(`createTestSession: restartFrom: ending the earlier session failed: ${messageOf(error)}`, { cause: error })
  }
}
