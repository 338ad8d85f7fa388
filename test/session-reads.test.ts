// What watch mode reruns on: each test file records, in its task's meta, the project files its sessions
// read at run time (an extension, the modules it imports, a mock spec by path). test/watch.test.ts edits
// them in a whole Vitest; here the record itself is checked, inside the worker.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createTestSession } from '../environment/index.js'
import { withReaders } from '../environment/rerun-on-reads.js'
import { readsOf } from '../environment/session-reads.js'

const file = (path: string) => resolve(import.meta.dirname, '..', path)

describe("a test file's reads", () => {
  it('are the extension, the local modules it imports (not node_modules) and a mock spec given by path', async (context) => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-reads-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const spec = join(dir, 'guard.json')
    writeFileSync(spec, JSON.stringify({ schema: 'pi.ext.mock_spec.v1', extension_id: 'guard' }))
    // A bound for a loaded machine, not a speed check: the first load transforms the extension.
    await createTestSession({ extensions: ['./test/fixtures/extensions/guard.ts'], mockSpec: spec, extensionLoadTimeout: 60_000 })
    const reads = readsOf(context.task.file.meta)
    expect(reads).toEqual(
      expect.arrayContaining([file('test/fixtures/extensions/guard.ts'), file('test/fixtures/extensions/counter.ts'), spec]),
    )
    expect(reads.filter((read) => read.includes('/node_modules/'))).toEqual([])
    expect(new Set(reads).size).toBe(reads.length)
  })

  it('keep what earlier tests of the file read', async (context) => {
    await createTestSession({ extensions: ['./test/fixtures/extensions/commit-message.ts'], extensionLoadTimeout: 60_000 })
    expect(readsOf(context.task.file.meta)).toEqual(expect.arrayContaining([file('test/fixtures/extensions/guard.ts'), file('test/fixtures/extensions/commit-message.ts')]))
  })

  it('ignore what is not a list of paths in the meta', () => {
    expect(readsOf({})).toEqual([])
    expect(readsOf({ 'pi:reads': 'a.ts' })).toEqual([])
    expect(readsOf({ 'pi:reads': ['a.ts', 3] })).toEqual(['a.ts'])
  })
})

describe('vitest related and --changed', () => {
  it('select, beside the changed files, each test file whose sessions read one of them', () => {
    const reads = { '/p/tests/cmt.test.ts': ['/p/ext/cmt.ts', '/p/ext/word.ts'], '/p/tests/other.test.ts': ['/p/ext/other.ts'] }
    expect(withReaders(['/p/ext/word.ts'], reads)).toEqual(['/p/ext/word.ts', '/p/tests/cmt.test.ts'])
    expect(withReaders(['/p/ext/other.ts', '/p/ext/cmt.ts'], reads)).toEqual(['/p/ext/other.ts', '/p/ext/cmt.ts', '/p/tests/cmt.test.ts', '/p/tests/other.test.ts'])
    expect(withReaders(['/p/notes/unread.ts'], reads)).toEqual(['/p/notes/unread.ts'])
  })
})
