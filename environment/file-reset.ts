// Per-file isolation done by the harness when Vitest runs several files in one worker (isolate: false):
// Pi is imported once per worker, and what one file changes is undone before the next one starts.
import { fileURLToPath } from 'node:url'
import { vi } from 'vitest'
import { injected } from './provided.js'
import { globalSlot, isGlobalSlot } from '../src/shared/global-slot.js'
import { captureCwd, captureEnv, captureGlobals, trackProcessListeners, trackTimers } from './file-state.js'
import { forgetEvaluatedModules, isVitestGlobal, workerIsolate, type ModuleInfo } from './vitest-internals.js'

declare module 'vitest' {
  interface ProvidedContext {
    /** pi({ isolate }): false when one worker runs many files and the harness resets between them. */
    'pi:isolate'?: boolean
  }
}

/** Whether this worker runs more than one file: pi({ isolate }) when given, else Vitest's resolved config (CLI included). */
export function sharedWorker(): boolean {
  const provided = injected('pi:isolate')
  return provided === undefined ? workerIsolate() === false : !provided
}

// Not the file's to undo: Vitest's worker state and coverage counters, the harness's own slots.
const keep = (key: string | symbol) => isVitestGlobal(key) || isGlobalSlot(key)

// The harness's own folders, beside this one: dist/{environment,src,matchers} when built, the
// sources when Vite runs them (this repository's own tests).
const harnessDirs = ['environment', 'src', 'matchers'].map((dir) => fileURLToPath(new URL(`../${dir}/`, import.meta.url)))

// node_modules, Pi included, and the harness stay evaluated, wherever the harness is installed (a
// project that imports it by its own name inlines it): a file gets fresh local modules (helpers, code
// under test). Vitest evaluates the setup file again for each file itself.
const stays = (module: ModuleInfo) => {
  const where = `${module.file}${module.id}`
  return where.includes('/node_modules/') || harnessDirs.some((dir) => module.file?.startsWith(dir))
}

// The end of the file that is still to run.
const pendingEnd = globalSlot<() => void>('file-reset')

/**
 * Starts a file: remembers env and globals, tracks the file's timers and process listeners. Returns
 * the end of the file, to run after its sessions are disposed. A previous file that never reached its
 * end (it failed to load, so its afterAll did not run) is ended first.
 */
export async function beginFile(): Promise<() => void> {
  pendingEnd.get()?.()
  // Imported here, not at the top: the setup file imports this module, and a file of an isolated worker
  // that makes no session need not load Pi (about 4 s of each such file's setup on a loaded 2-core machine).
  const { resetPiGlobals } = await import('../src/pi/index.js')
  const restoreEnv = captureEnv()
  const restoreCwd = captureCwd()
  const restoreGlobals = captureGlobals(keep)
  const clearTimers = trackTimers()
  const removeListeners = trackProcessListeners()
  const end = () => {
    if (pendingEnd.get() !== end) return
    pendingEnd.clear()
    // Vitest's own undo first (fake timers, stubs), so what is left is exactly what the file did.
    vi.useRealTimers()
    vi.unstubAllGlobals()
    vi.unstubAllEnvs()
    clearTimers()
    removeListeners()
    restoreGlobals()
    restoreEnv()
    restoreCwd()
    resetPiGlobals()
    forgetEvaluatedModules(stays)
  }
  pendingEnd.set(end)
  return end
}
