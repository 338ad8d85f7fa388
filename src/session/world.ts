// The dirs a session runs over, seeded before anything of its extensions runs: shared by both depths.
import { seedEntries, writeSeedFiles, type SeedEntry } from '../isolation/seed-files.js'
import { keepWhenLeftAsMade, makeSessionDirs, releaseSessionDirs, takeKeptSessionDirs, type SessionDirs } from '../isolation/session-dirs.js'
import { worldKey } from '../isolation/world-shape.js'
import { optionPath, type TestSessionOptions } from './options.js'
import type { SessionPlan } from './plan.js'
import { takeOver } from './restart.js'

/**
 * The dirs the session runs over, seeded: those of the session it restarts from (which ends once the seeds
 * are written: a refused seed leaves it as it was), else those of an earlier session seeded alike (or, like
 * it, not at all) that left them as it found them, else new ones.
 */
export async function worldFor(plan: SessionPlan, options: TestSessionOptions): Promise<SessionDirs> {
  const home = options.home ? seedEntries(options.home, (key) => optionPath('home', key)) : []
  const files = options.files ? seedEntries(options.files, (key) => optionPath('files', key)) : []
  if (plan.restartFrom !== undefined) {
    seed(plan.restartFrom, home, files)
    await takeOver(options.restartFrom!, plan.restartFrom)
    return plan.restartFrom
  }
  // Only a world of the harness's own dirs is kept: a test's own cwd is not the harness's to keep.
  const key = plan.cwd === undefined ? worldKey(home, files) : undefined
  const kept = key === undefined ? undefined : takeKeptSessionDirs(key)
  if (kept !== undefined) return kept
  const dirs = await makeSessionDirs(plan.cwd)
  try {
    seed(dirs, home, files)
  } catch (error) {
    releaseSessionDirs(dirs)
    throw error
  }
  if (key !== undefined) keepWhenLeftAsMade(dirs, key)
  return dirs
}

function seed(dirs: SessionDirs, home: readonly SeedEntry[], files: readonly SeedEntry[]): void {
  if (home.length > 0) writeSeedFiles(dirs.home, home, (key) => optionPath('home', key))
  if (files.length > 0) writeSeedFiles(dirs.cwd, files, (key) => optionPath('files', key))
}
