// Per-file isolation done by the harness when Vitest runs several files in one worker (isolate: false):
// Pi is imported once per worker, and what one file changes is undone before the next one starts.
import { inject, vi, type EvaluatedModules } from 'vitest'
import { resetPiGlobals } from '../src/pi/index.js'
import { captureCwd, captureEnv, captureGlobals, trackProcessListeners, trackTimers } from './file-state.js'

declare module 'vitest' {
  interface ProvidedContext {
    /** pi({ isolate }): false when one worker runs many files and the harness resets between them. */
    'pi:isolate'?: boolean
  }
}

type WorkerState = { config?: { isolate?: boolean }; evaluatedModules?: EvaluatedModules }
const workerState = () => (globalThis as { __vitest_worker__?: WorkerState }).__vitest_worker__

/** Whether this worker runs more than one file: pi({ isolate }) when given, else Vitest's resolved config (CLI included). */
export function sharedWorker(): boolean {
  let provided: boolean | undefined
  try {
    provided = inject('pi:isolate')
  } catch {
    provided = undefined
  }
  return provided === undefined ? workerState()?.config?.isolate === false : !provided
}

// Not the file's to undo: Vitest's worker state and coverage counters, the harness's own slots.
function keep(key: string | symbol): boolean {
  if (typeof key === 'string') return /^__vitest/i.test(key)
  const name = Symbol.keyFor(key)
  return name !== undefined && name.startsWith('vitest-environment-pi:')
}

/**
 * The next file gets fresh local modules (helpers, code under test, their state); node_modules, Pi
 * included, stays evaluated. Like vi.resetModules(), minus dependencies; transformed code is kept.
 */
function resetLocalModules(): void {
  const modules = workerState()?.evaluatedModules
  if (!modules?.idToModuleMap) {
    vi.resetModules()
    return
  }
  for (const node of modules.idToModuleMap.values()) {
    if (node.id.startsWith('mock:') || `${node.file}${node.id}`.includes('/node_modules/')) continue
    node.evaluated = false
    node.promise = undefined
    node.exports = undefined
    node.importers.clear()
  }
}

const PENDING = Symbol.for('vitest-environment-pi:file-reset')
type Slot = { [PENDING]?: () => void }

/**
 * Starts a file: remembers env and globals, tracks the file's timers and process listeners. Returns
 * the end of the file, to run after its sessions are disposed. A previous file that never reached its
 * end (it failed to load, so its afterAll did not run) is ended first.
 */
export function beginFile(): () => void {
  const slot = globalThis as Slot
  slot[PENDING]?.()
  const restoreEnv = captureEnv()
  const restoreCwd = captureCwd()
  const restoreGlobals = captureGlobals(keep)
  const clearTimers = trackTimers()
  const removeListeners = trackProcessListeners()
  const end = () => {
    if (slot[PENDING] !== end) return
    delete slot[PENDING]
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
    resetLocalModules()
  }
  slot[PENDING] = end
  return end
}
