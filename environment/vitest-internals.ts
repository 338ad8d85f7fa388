// Every reach into Vitest's internals: in a worker, the state it keeps on globalThis (`__vitest_worker__`:
// the resolved config, the module runner's graph of evaluated modules), the module nodes in that graph and
// the state check of a test's annotate(); in the main process, the resolved config's reporters and related
// files, the VCS provider, the Vite module graphs the watcher reads and a forks worker's child process. None
// of it is public API: when a Vitest release moves it, this is the file to change. Without the worker
// state, each worker function falls back to what Vitest does publicly.
import { vi, type EvaluatedModules, type TestAnnotation, type TestAttachment, type TestContext } from 'vitest'
import type { ChildProcess } from 'node:child_process'
import type { ForksPoolWorker, Reporter, TestProject, Vitest } from 'vitest/node'

type EvaluatedModule = NonNullable<ReturnType<EvaluatedModules['getModuleById']>>

/** What a filter sees of a module: its resolved id and its file. */
export type ModuleInfo = Pick<EvaluatedModule, 'id' | 'file'>

interface WorkerState {
  config?: { isolate?: boolean }
  evaluatedModules?: EvaluatedModules
}

const workerState = () => (globalThis as { __vitest_worker__?: WorkerState }).__vitest_worker__

/** Vitest's resolved `isolate` for this worker (config and CLI); undefined without worker state. */
export function workerIsolate(): boolean | undefined {
  return workerState()?.config?.isolate
}

/** Whether a global is Vitest's own (its worker state, its coverage counters), not a test file's. */
export function isVitestGlobal(key: string | symbol): boolean {
  return typeof key === 'string' && /^__vitest/i.test(key)
}

/**
 * Makes the next import of `file` evaluate it again, and every module it imports (transitively)
 * that `follow` accepts. Without the module graph, every module is reset (still fresh, slower).
 */
export function invalidateImportTree(file: string, follow: (module: ModuleInfo) => boolean): void {
  const modules = workerState()?.evaluatedModules
  if (!modules) {
    vi.resetModules()
    return
  }
  for (const node of importTree(modules, file, follow)) modules.invalidateModule(node)
}

function importTree(modules: EvaluatedModules, file: string, follow: (module: ModuleInfo) => boolean): EvaluatedModule[] {
  const found = new Map<string, EvaluatedModule>()
  const visit = (node: EvaluatedModule | undefined) => {
    if (!node || found.has(node.id) || !follow(node)) return
    found.set(node.id, node)
    for (const id of node.imports) visit(modules.getModuleById(id))
  }
  for (const node of modules.getModulesByFile(file) ?? []) visit(node)
  return [...found.values()]
}

/** The files of `file`'s import tree as this worker last evaluated it, through the modules `follow` accepts. */
export function importedFiles(file: string, follow: (module: ModuleInfo) => boolean): string[] {
  const modules = workerState()?.evaluatedModules
  const files = modules ? importTree(modules, file, follow).map((node) => node.file) : []
  return [...new Set([file, ...files])]
}

/**
 * Forgets the evaluation of every module but those `keep` accepts and Vitest's mocks, keeping their
 * transformed code: vi.resetModules() with a filter. Without the module graph, every module is reset.
 */
export function forgetEvaluatedModules(keep: (module: ModuleInfo) => boolean): void {
  const modules = workerState()?.evaluatedModules
  if (!modules?.idToModuleMap) {
    vi.resetModules()
    return
  }
  for (const node of modules.idToModuleMap.values()) {
    // `mock:` ids are the modules of vi.mock factories: Vitest's mocker owns them.
    if (node.id.startsWith('mock:') || keep(node)) continue
    node.evaluated = false
    node.promise = undefined
    node.exports = undefined
    node.importers.clear()
  }
}

/**
 * `test.annotate(...)` once the test's outcome is known (onTestFinished, a fixture's teardown), which
 * annotate() itself refuses: it accepts only a test whose state is still `run` (Vitest 4.1 and 5). The
 * state reads `run` for the synchronous call alone; Vitest then reports the annotation and copies its
 * attachment as it does any other.
 */
export async function annotateEndedTest(test: Pick<TestContext, 'task' | 'annotate'>, message: string, type: string, attachment?: TestAttachment): Promise<TestAnnotation> {
  const result = test.task.result
  if (!result) return test.annotate(message, type, attachment)
  const state = result.state
  result.state = 'run'
  try {
    return test.annotate(message, type, attachment)
  } finally {
    result.state = state
  }
}

/** Adds `reporter` to Vitest's: called from a plugin's configureVitest, before Vitest creates its reporters. */
export function addReporter(vitest: Vitest, reporter: Reporter): void {
  ;(vitest.config.reporters as unknown[]).push(reporter)
}

/**
 * Widens the files `vitest related` names and those `--changed` finds by `widen`, before Vitest selects the
 * test files that import them: `widen` adds the test files that depend on them in ways imports do not show.
 */
export function widenRelatedFiles(vitest: Vitest, widen: (files: string[]) => string[]): void {
  const config = vitest.config
  if (config.related) config.related = widen(config.related)
  const vcs = vitest.vcs as Partial<Vitest['vcs']> | undefined
  const find = vcs?.findChangedFiles?.bind(vcs)
  if (find) vcs!.findChangedFiles = async (options) => widen(await find(options))
}

/**
 * Makes each module graph of `project` that holds `testFile` list it as an importer of `files` (a file no
 * graph holds, such as a JSON spec, gets a file-only entry), and no longer of `dropped`: Vitest's watcher
 * then reruns the test file when one of them changes, as for a file it imports. `loader`, the setup file
 * that imports them at run time (which Vitest 5 records as their importer), is no importer of theirs: a
 * change to a setup file's import reruns every test file.
 */
export function linkImporters(project: TestProject, testFile: string, files: readonly string[], dropped: readonly string[], loader: string): void {
  for (const { moduleGraph } of Object.values(project.vite.environments)) {
    const tests = moduleGraph.getModulesByFile(testFile)
    if (!tests?.size) continue
    for (const file of dropped) for (const node of moduleGraph.getModulesByFile(file) ?? []) for (const test of tests) node.importers.delete(test)
    for (const file of files) {
      const nodes = moduleGraph.getModulesByFile(file) ?? new Set([moduleGraph.createFileOnlyEntry(file)])
      for (const node of nodes) {
        for (const importer of node.importers) if (importer.file === loader) node.importers.delete(importer)
        for (const test of tests) node.importers.add(test)
      }
    }
  }
}

/** Names a forks worker as a custom pool's (a runner is reused for a task of the same pool name). */
export function renameWorker(worker: ForksPoolWorker, name: string): ForksPoolWorker {
  ;(worker as { name: string }).name = name
  return worker
}

/** Whether `worker` can be given a process (adoptProcess): false where a release moved the field. */
export function canAdoptProcess(worker: ForksPoolWorker): boolean {
  return Object.hasOwn(worker, '_fork')
}

/**
 * Makes `worker` run in `child`, a process started as Vitest starts a forks worker: its start() takes the
 * process it holds instead of forking one.
 */
export function adoptProcess(worker: ForksPoolWorker, child: ChildProcess): void {
  ;(worker as unknown as { _fork?: ChildProcess })._fork = child
}
