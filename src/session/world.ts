// The dirs a session runs over, seeded before anything of its extensions runs: shared by both depths.
import { writeSeedFiles } from '../isolation/seed-files.js'
import { makeSessionDirs, releaseSessionDirs, type SessionDirs } from '../isolation/session-dirs.js'
import { optionPath, type TestSessionOptions } from './options.js'
import type { SessionPlan } from './plan.js'
import { takeOver } from './restart.js'

/**
 * The dirs the session runs over, seeded: those of the session it restarts from (which ends once the seeds
 * are written: a refused seed leaves it as it was), else new ones.
 */
export async function worldFor(plan: SessionPlan, options: TestSessionOptions): Promise<SessionDirs> {
  if (plan.restartFrom !== undefined) {
    seed(plan.restartFrom, options)
    await takeOver(options.restartFrom!, plan.restartFrom)
    return plan.restartFrom
  }
  const dirs = await makeSessionDirs(plan.cwd)
  try {
    seed(dirs, options)
  } catch (error) {
    releaseSessionDirs(dirs)
    throw error
  }
  return dirs
}

function seed(dirs: SessionDirs, { home, files }: TestSessionOptions): void {
  if (home) writeSeedFiles(dirs.home, home, (key) => optionPath('home', key))
  if (files) writeSeedFiles(dirs.cwd, files, (key) => optionPath('files', key))
}
