// Reruns the test files whose sessions read a changed file. Vitest maps a changed file to test files by
// imports: through its module graph in watch mode, through each test file's imports for `related` and
// `--changed`. A session loads its extension (and mock spec) by a path string at run time, which no import
// shows. Each test file reports what its sessions read (environment/session-reads.ts); as it ends, this
// adds those files to the module graph as its imports, and keeps them in Vitest's cache dir, so that a
// later `vitest related` or `--changed` selects the test files that read a file in the last run.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { TestModule, Vitest } from 'vitest/node'
import { messageOf } from '../src/shared/errors.js'
import { readsOf } from './session-reads.js'
import { addReporter, linkImporters, widenRelatedFiles } from './vitest-internals.js'

/** Test file → the files its sessions read. */
type Reads = Record<string, string[]>

// A config Vitest resolved (anew when it restarts): one set of hooks for all the projects that use pi().
const hooked = new WeakSet<object>()

/** Called from pi()'s configureVitest; `setupFile` is the harness's, which imports the extensions. */
export function rerunOnReads(vitest: Vitest, setupFile: string): void {
  if (hooked.has(vitest.config)) return
  hooked.add(vitest.config)
  // Vitest sets Vite's cacheDir to its own (node_modules/.vite/vitest/<hash>).
  const store = join(vitest.vite.config.cacheDir, 'vitest-environment-pi', 'session-reads.json')
  const reads = readStore(store, vitest)
  widenRelatedFiles(vitest, (files) => withReaders(files, reads))
  // What each project's test file is linked to in its module graph.
  const linked = new Map<string, string[]>()
  addReporter(vitest, {
    onTestModuleEnd(module: TestModule) {
      // A file whose tests were all filtered out ran no session: what it read before still holds.
      if (module.state() === 'skipped') return
      const files = readsOf(module.meta())
      const key = `${module.project.name}\0${module.moduleId}`
      const before = linked.get(key) ?? []
      linkImporters(module.project, module.moduleId, files, before.filter((file) => !files.includes(file)), setupFile)
      linked.set(key, files)
      if (files.length > 0) reads[module.moduleId] = files
      else delete reads[module.moduleId]
    },
    onTestRunEnd() {
      writeStore(store, reads)
    },
  })
}

/** `files` and the test files that read one of them. */
export function withReaders(files: string[], reads: Reads): string[] {
  const changed = new Set(files)
  const readers = Object.keys(reads).filter((test) => reads[test]!.some((file) => changed.has(file)))
  return [...new Set([...files, ...readers])]
}

function readStore(store: string, vitest: Vitest): Reads {
  if (!existsSync(store)) return {}
  try {
    const parsed = JSON.parse(readFileSync(store, 'utf8')) as unknown
    const valid = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.values(parsed).every(isFileList)
    if (!valid) throw new Error('not an object of test files to the files their sessions read')
    return parsed as Reads
  } catch (error) {
    // A cache: the next run writes it anew; until then a related run misses what the sessions read.
    vitest.logger.warn(`vitest-environment-pi: ignoring ${store} (${messageOf(error)}); the next run writes it anew`)
    return {}
  }
}

const isFileList = (value: unknown) => Array.isArray(value) && value.every((file) => typeof file === 'string')

function writeStore(store: string, reads: Reads): void {
  // Test files since deleted drop out.
  const kept = Object.fromEntries(Object.entries(reads).filter(([test]) => existsSync(test)))
  mkdirSync(dirname(store), { recursive: true })
  const partial = `${store}.${process.pid}`
  writeFileSync(partial, JSON.stringify(kept, null, 2) + '\n')
  renameSync(partial, store)
}
