// Editing an extension, a module it imports or a mock spec given by path reruns the test files whose
// sessions read it, in watch mode, in every pool and with pi({ isolate: false }); `vitest related` and
// `--changed` select them too. Vitest's own programmatic API drives a small project.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VITEST_MAJOR } from './support/consumer.js'
import { CURRENT_LINE } from './support/pi-line.js'
import { createWatchProject, type WatchProject } from './support/watch-project.js'

let project: WatchProject
beforeAll(() => {
  project = createWatchProject()
})
afterAll(() => project?.remove())

const ALL = ['tests/cmt.test.ts', 'tests/other.test.ts', 'tests/plain.test.ts']
const WORD = (word: string) => `export const WORD = '${word}'\n`
const SPEC = (rules: unknown[]) => JSON.stringify({ schema: 'pi.ext.mock_spec.v1', extension_id: 'cmt', exec: { rules } }) + '\n'
const CMT = "import { WORD } from './word.ts'\nexport default function (pi: { registerCommand(name: string, options: object): void }) {\n  pi.registerCommand(WORD + '-v2', { description: 'v2', handler: async () => {} })\n}\n"

// A hang guard, not a speed check: a start and five runs of a nested Vitest, each bounded by WAIT_MS, on a
// loaded 2-core machine.
const ROUND_MS = 600_000
// Pi 1.x on Vitest 4's VM pools does not load at all (docs/compatibility.md, "The VM pools on Pi 1.x need Vitest 5").
const pools = ['forks', 'threads', ...(CURRENT_LINE && VITEST_MAJOR < 5 ? [] : ['vmThreads', 'vmForks'])]
const modes = [...pools.map((pool) => ({ pool, isolate: undefined })), ...['forks', 'threads'].map((pool) => ({ pool, isolate: false }))]

describe('watch mode: a change to what a session read reruns the test files that read it', () => {
  let round = 0
  for (const { pool, isolate } of modes) {
    it(`${pool} pool${isolate === false ? ', pi({ isolate: false })' : ''}`, async () => {
      // Each round starts from its own words, so that what a rerun sees is this round's edit.
      const n = ++round
      project.write('extensions/cmt/word.ts', WORD(`one${n}`))
      const watching = await project.watch({ pool, isolate })
      try {
        expect(watching.first.files).toEqual(ALL)
        expect(watching.first.commands['tests/cmt.test.ts']).toEqual([`one${n}`])

        // A module the extension imports: the rerun loads the new code.
        const word = await watching.edit('extensions/cmt/word.ts', WORD(`two${n}`))
        expect(word).toEqual({ files: ['tests/cmt.test.ts'], commands: { 'tests/cmt.test.ts': [`two${n}`] } })

        // The extension itself.
        const cmt = await watching.edit('extensions/cmt/cmt.ts', CMT)
        expect(cmt).toEqual({ files: ['tests/cmt.test.ts'], commands: { 'tests/cmt.test.ts': [`two${n}-v2`] } })

        // The mock spec the session read by path.
        expect((await watching.edit('mocks/cmt.json', SPEC([{ match: { cmd_exact: 'ls' }, result: { code: 0 } }]))).files).toEqual(['tests/cmt.test.ts'])

        // A file no session read reruns nothing: the next rerun is the other extension's alone.
        await watching.touch('notes/unread.ts', `export const UNREAD = ${n}\n`)
        expect((await watching.edit('extensions/other-word.ts', WORD(`other${n}`))).files).toEqual(['tests/other.test.ts'])
      } finally {
        await watching.close()
        project.write('extensions/cmt/cmt.ts', CMT.replace(" + '-v2'", '').replace("'v2'", "'from word.ts'"))
        project.write('mocks/cmt.json', SPEC([]))
      }
    }, ROUND_MS)
  }
})

describe('vitest related and --changed select the test files whose sessions read a file in the last run', () => {
  beforeAll(async () => {
    // The last run records what each test file's sessions read.
    expect((await project.run({})).files).toEqual(ALL)
  })

  it.each([
    ['the extension', 'extensions/cmt/cmt.ts', ['tests/cmt.test.ts']],
    ['a module it imports', 'extensions/cmt/word.ts', ['tests/cmt.test.ts']],
    ['the mock spec', 'mocks/cmt.json', ['tests/cmt.test.ts']],
    ['another extension', 'extensions/other.ts', ['tests/other.test.ts']],
  ])('related %s', async (_what, file, expected) => {
    expect((await project.run({ related: [file] })).files).toEqual(expected)
  })

  it('related a file no session read selects no test file', async () => {
    expect((await project.run({ related: ['notes/unread.ts'] })).files).toEqual([])
  })

  it('--changed', async () => {
    project.commit()
    project.write('extensions/cmt/word.ts', WORD('changed'))
    const run = await project.run({ changed: true })
    expect(run).toEqual({ files: ['tests/cmt.test.ts'], commands: { 'tests/cmt.test.ts': ['changed'] } })
  })
})
