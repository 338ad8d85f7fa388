// Extension modules import through Vite's module runner (exact coverage, vi.mock, TS), each session
// evaluating the extension and its local imports afresh, as Pi's own loader does.
import { vi, type EvaluatedModules } from 'vitest'
import type { ModuleLoader } from '../src/session/module-loader.js'

type EvaluatedModule = NonNullable<ReturnType<EvaluatedModules['getModuleById']>>

// Vitest's worker state is internal; without it every module is reset instead (still fresh, slower).
function evaluatedModules(): EvaluatedModules | undefined {
  return (globalThis as { __vitest_worker__?: { evaluatedModules?: EvaluatedModules } }).__vitest_worker__?.evaluatedModules
}

/** The extension's own import tree, without node_modules (dependencies load once, as in Pi). */
function localTree(modules: EvaluatedModules, file: string): EvaluatedModule[] {
  const found = new Map<string, EvaluatedModule>()
  const visit = (node: EvaluatedModule | undefined) => {
    if (!node || found.has(node.id) || (node.id.includes('/node_modules/') && !node.file.endsWith('.ts'))) return
    found.set(node.id, node)
    for (const id of node.imports) visit(modules.getModuleById(id))
  }
  for (const node of modules.getModulesByFile(file) ?? []) visit(node)
  return [...found.values()]
}

/**
 * `importFresh` is defined by the caller so that `import()` is compiled in a module Vite processes
 * (the setup file): a plain import() inside node_modules would bypass Vite.
 */
export function freshLoader(importFresh: (path: string) => Promise<Record<string, unknown>>): ModuleLoader {
  let queue: Promise<unknown> = Promise.resolve()
  return (path) => {
    // Two loads at once would share one evaluation: serialise reset-and-import.
    const load = queue.then(async () => {
      const modules = evaluatedModules()
      if (modules) for (const node of localTree(modules, path)) modules.invalidateModule(node)
      else vi.resetModules()
      return importFresh(path)
    })
    queue = load.catch(() => {})
    return load
  }
}
