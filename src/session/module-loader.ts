// How extension modules are imported. Under Vitest the setup file registers an import that goes
// through Vite (exact coverage, vi.mock); src/ itself knows nothing of Vitest.
import { pathToFileURL } from 'node:url'
import { globalSlot } from '../shared/global-slot.js'

/**
 * Imports a module by absolute path, evaluating the module and its local imports afresh. `signal` aborts
 * when the caller gives up waiting (a top-level await that never settles): a loader that queues its loads
 * moves on to the next one.
 */
export type ModuleLoader = (absolutePath: string, options?: { signal?: AbortSignal }) => Promise<Record<string, unknown>>

// On globalThis: the setup file and the test may hold different instances of this module.
const registered = globalSlot<ModuleLoader>('module-loader')

export function setModuleLoader(loader: ModuleLoader | undefined): void {
  registered.set(loader)
}

let loads = 0

/** Plain Node import, fresh per call for the entry module; it cannot load TypeScript. */
const nativeLoader: ModuleLoader = (absolutePath) => {
  if (/\.[cm]?tsx?$/.test(absolutePath)) {
    throw new Error(
      'TypeScript extensions load through Vite: run the test with `environment: "pi"` (or the setup file ' +
        '"vitest-environment-pi/setup"), or pass `importModule` to createTestSession',
    )
  }
  return import(`${pathToFileURL(absolutePath).href}?session=${++loads}`)
}

export function moduleLoader(override?: ModuleLoader): ModuleLoader {
  return override ?? registered.get() ?? nativeLoader
}
