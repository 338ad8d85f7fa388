// A small project whose tests load extensions by path, driven through Vitest's own programmatic API
// (vitest/node): which test files each run ran, and what their sessions saw. Its config takes pi() from
// a copy of this package's dist (built by `npm run test:e2e` first), as an installed copy would.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import type { TestModule, Vitest } from 'vitest/node'
import { createVitest } from 'vitest/node'
import { within } from '../../src/shared/within.js'
import { ROOT } from './consumer.js'

/** One run: the test files it ran (relative, sorted) and the commands each file's session saw registered. */
export interface Run {
  files: string[]
  commands: Record<string, string[]>
}

const extension = (file: string) => `import { WORD } from './${file}'
export default function (pi: { registerCommand(name: string, options: object): void }) {
  pi.registerCommand(WORD, { description: 'from ${file}', handler: async () => {} })
}
`

const loadingTest = (harness: string, options: string) => `import { it } from 'vitest'
import { createTestSession } from '${harness}/dist/environment/index.js'
it('loads it', async ({ task }) => {
  const t = await createTestSession(${options})
  task.file.meta.commands = t.session.extensionRunner.getRegisteredCommands().map((c) => c.invocationName)
})
`

const files = (harness: string): Record<string, string> => ({
  'extensions/cmt/cmt.ts': extension('word.ts'),
  'extensions/cmt/word.ts': "export const WORD = 'one'\n",
  'extensions/other.ts': extension('other-word.ts'),
  'extensions/other-word.ts': "export const WORD = 'other'\n",
  'mocks/cmt.json': JSON.stringify({ schema: 'pi.ext.mock_spec.v1', extension_id: 'cmt', exec: { rules: [] } }) + '\n',
  'notes/unread.ts': 'export const UNREAD = 1\n',
  'tests/cmt.test.ts': loadingTest(harness, "{ extensions: ['./extensions/cmt/cmt.ts'], mockSpec: 'mocks/cmt.json' }"),
  'tests/other.test.ts': loadingTest(harness, "{ extensions: ['./extensions/other.ts'] }"),
  'tests/plain.test.ts': "import { expect, it } from 'vitest'\nit('loads nothing', () => expect(1).toBe(1))\n",
})

export interface WatchProject {
  dir: string
  /** Writes `content` to the project's `file` (relative). */
  write(file: string, content: string): void
  /** Starts Vitest in watch mode; its first run is done when this resolves. */
  watch(options?: { pool?: string; isolate?: boolean }): Promise<Watching>
  /** One `vitest run` with `options` (related, changed): the run it made. */
  run(options: { related?: string[]; changed?: boolean | string }): Promise<Run>
  /** Makes the project a git repository with everything committed. */
  commit(): void
  remove(): void
}

export interface Watching {
  first: Run
  /** Writes `file` (relative) and waits for the rerun it causes. */
  edit(file: string, content: string): Promise<Run>
  /** Writes `file` and waits until Vitest's watcher saw the change (whatever it did with it). */
  touch(file: string, content: string): Promise<void>
  close(): Promise<void>
}

// A hang guard, not a speed check: a first run on a loaded 2-core machine has taken over a minute.
const WAIT_MS = 150_000

/** The run, or an error naming the fixture's test files that failed (then the run shows nothing right). */
function runOf(dir: string, modules: ReadonlyArray<TestModule>): Run | Error {
  const failed = modules.filter((m) => m.state() === 'failed')
  if (failed.length > 0) {
    const errors = failed.map((m) => `${relative(dir, m.moduleId)}: ${[...m.errors(), ...[...m.children.allTests()].flatMap((t) => t.result().errors ?? [])].map((e) => e.message).join('; ')}`)
    return new Error(`the project's test files failed:\n${errors.join('\n')}`)
  }
  const files = modules.map((m) => relative(dir, m.moduleId)).sort()
  const commands = Object.fromEntries(modules.map((m) => [relative(dir, m.moduleId), ((m.meta() as { commands?: string[] }).commands ?? [])]))
  return { files, commands }
}

async function bounded<T>(work: Promise<T>, what: string): Promise<T> {
  const done = await within(work, WAIT_MS)
  if (!done) throw new Error(`waited ${WAIT_MS} ms for ${what}`)
  return done.value
}

/**
 * The package as built now, copied beside the project: the project's Vitest watches the harness's setup file
 * and reruns every test file when it changes, which a build of the checkout (another suite's `npm test`, run
 * meanwhile) does to dist/.
 */
function copyOfHarness(): string {
  const harness = mkdtempSync(join(ROOT, '.cache', 'watch-harness-'))
  // What the package ships (dist's source maps point into the sources), and package.json for its `imports`
  // (#pi/...); its dependencies resolve from the repo's node_modules, above.
  for (const part of ['package.json', 'dist', 'src', 'environment', 'matchers']) cpSync(join(ROOT, part), join(harness, part), { recursive: true })
  return harness
}

/** Creates the project under the repo's .cache (so that Vitest and Pi resolve from its node_modules). */
export function createWatchProject(): WatchProject {
  mkdirSync(join(ROOT, '.cache'), { recursive: true })
  const harness = copyOfHarness()
  const dir = mkdtempSync(join(ROOT, '.cache', 'watch-'))
  const write = (file: string, content: string) => {
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    writeFileSync(join(dir, file), content)
  }
  for (const [file, content] of Object.entries(files(harness))) write(file, content)
  const config = (isolate?: boolean) =>
    `import { defineConfig } from 'vitest/config'\nimport { pi } from '${harness}/dist/environment/plugin.js'\n` +
    `export default defineConfig({ plugins: [pi(${isolate === undefined ? '' : `{ isolate: ${isolate} }`})], test: { include: ['tests/**/*.test.ts'] } })\n`
  write('vitest.config.ts', config())

  async function start(options: Record<string, unknown>, onRun: (run: Run | Error) => void): Promise<Vitest> {
    return createVitest('test', {
      root: dir,
      config: join(dir, 'vitest.config.ts'),
      reporters: [{ onTestRunEnd: (modules) => onRun(runOf(dir, modules)) }],
      maxWorkers: 1,
      ...options,
    })
  }

  return {
    dir,
    write,
    async watch({ pool, isolate } = {}) {
      write('vitest.config.ts', config(isolate))
      // Every run in order: one nobody waited for is the next one read, so no rerun goes unseen.
      const runs: (Run | Error)[] = []
      let waiting: ((run: Run | Error) => void) | undefined
      const exitCode = process.exitCode
      const vitest = await start({ watch: true, ...(pool ? { pool } : {}) }, (run) => {
        if (waiting) waiting(run)
        else runs.push(run)
        waiting = undefined
      })
      const nextRun = async (what: string) => {
        const run = runs.shift() ?? (await bounded(new Promise<Run | Error>((resolve) => (waiting = resolve)), what))
        if (run instanceof Error) throw run
        return run
      }
      await bounded(vitest.start(), 'the first run in watch mode')
      const first = await nextRun('the first run to report')
      const seen = (file: string) =>
        new Promise<void>((resolve) => {
          const listener = (changed: string) => {
            if (changed !== join(dir, file)) return
            vitest.vite.watcher.off('change', listener)
            resolve()
          }
          vitest.vite.watcher.on('change', listener)
        })
      return {
        first,
        async edit(file, content) {
          const rerun = nextRun(`the rerun after editing ${file}`)
          write(file, content)
          return rerun
        },
        async touch(file, content) {
          const changed = bounded(seen(file), `Vitest's watcher to see ${file} change`)
          write(file, content)
          await changed
        },
        async close() {
          await vitest.close()
          // Vitest sets the exit code of the process it runs in (this test's worker) when a run fails.
          process.exitCode = exitCode
        },
      }
    },
    async run(options) {
      let last: Run | Error | undefined
      const exitCode = process.exitCode
      const vitest = await start({ watch: false, ...options }, (run) => (last = run))
      try {
        await bounded(vitest.start(), `vitest run ${JSON.stringify(options)}`)
      } catch (error) {
        // Vitest's answer to a selection of no test file, whatever passWithNoTests says.
        if (!(error instanceof Error && error.message === 'No test files found')) throw error
      } finally {
        await vitest.close()
        process.exitCode = exitCode
      }
      if (last instanceof Error) throw last
      return last ?? { files: [], commands: {} }
    },
    commit() {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' })
      git('init', '-q')
      git('add', '-A')
      git('-c', 'user.name=t', '-c', 'user.email=t@localhost', 'commit', '-qm', 'start')
    },
    remove() {
      rmSync(dir, { recursive: true, force: true })
      rmSync(harness, { recursive: true, force: true })
    },
  }
}
