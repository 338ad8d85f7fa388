// Extension modules import through Vite's module runner (exact coverage, vi.mock, TS), each session
// evaluating the extension and its local imports afresh, as Pi's own loader does. The project files a load
// evaluated are told as the session's reads, so that a change to one of them reruns the test.
import type { ModuleLoader } from '../src/session/module-loader.js'
import { noteProjectReads } from '../src/shared/project-reads.js'
import { importedFiles, invalidateImportTree, type ModuleInfo } from './vitest-internals.js'

/** The extension's own modules: dependencies load once, as in Pi (a TypeScript file is source, even in node_modules). */
const ownModule = (module: ModuleInfo) => !module.id.includes('/node_modules/') || module.file.endsWith('.ts')

/** The project's own files: what a watcher sees change. */
const projectModule = (module: ModuleInfo) => !module.id.includes('/node_modules/')

/**
 * `importFresh` is defined by the caller so that `import()` is compiled in a module Vite processes
 * (the setup file): a plain import() inside node_modules would bypass Vite.
 */
export function freshLoader(importFresh: (path: string) => Promise<Record<string, unknown>>): ModuleLoader {
  let queue: Promise<unknown> = Promise.resolve()
  return (path, { signal } = {}) => {
    // Two loads at once would share one evaluation: serialise reset-and-import.
    const load = queue.then(async () => {
      signal?.throwIfAborted()
      invalidateImportTree(path, ownModule)
      noteProjectReads([path])
      try {
        return await importFresh(path)
      } finally {
        // Also when it failed (fixing it must rerun the test): the modules it got to.
        noteProjectReads(importedFiles(path, projectModule))
      }
    })
    // A load its caller gave up on (a top-level await that never settles) is abandoned, not waited for.
    queue = Promise.race([load.catch(() => {}), new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }))])
    return load
  }
}
