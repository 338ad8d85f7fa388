// Which sessions a failing test carries, seen from inside the worker (test/attach-sessions.test.ts sees the
// files a whole run writes): a session whose problem shows only when its test ends is attached too.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, type TestContext } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, when } from '../environment/index.js'

const attachDir = mkdtempSync(join(tmpdir(), 'pi-attach-in-process-'))
afterAll(() => rmSync(attachDir, { recursive: true, force: true }))

/** Runs `git status` at session start, catching the error: the test never sees the unmocked call. */
function gitAtStart(pi: ExtensionAPI) {
  pi.on('session_start', async () => {
    await pi.exec('git', ['status']).catch(() => undefined)
  })
}

/** The annotations an earlier test of this suite ended with. */
function annotationsOf(context: TestContext, name: string) {
  const test = context.task.suite!.tasks.find((task) => task.name === name)
  if (test?.type !== 'test') throw new Error(`no test named ${name}`)
  return test.annotations
}

describe('a session that fails only when its test ends', () => {
  // Passes when it fails: the failure comes from the session's end, after the body passed.
  it.fails('an unmocked exec the test never awaited', async () => {
    await createTestSession({ extensions: [gitAtStart], attachDir })
  })

  it('is attached to its test', (context) => {
    const annotations = annotationsOf(context, 'an unmocked exec the test never awaited')
    expect(annotations.map((annotation) => `${annotation.type}: ${annotation.message}`)).toEqual([
      "pi:session: session 1 (extensions: <inline:1>): Pi's HTML export",
      "pi:session: session 1 (extensions: <inline:1>): Pi's session file",
    ])
    // Written under attachDir, then copied by Vitest into its attachments dir.
    for (const { attachment } of annotations) expect(existsSync(attachment!.path!)).toBe(true)
    expect(readdirSync(attachDir, { recursive: true }).filter((name) => /session-1\.(html|jsonl)$/.test(String(name)))).toHaveLength(2)
  })

  it('a passing test', async () => {
    await createTestSession({ attachDir })
  })

  it('a passing test with attach: "always"', async () => {
    await createTestSession({ attachDir, attach: 'always' })
  })

  it.fails('a failing test with attach: "never"', async () => {
    await createTestSession({ extensions: [gitAtStart], attachDir, attach: 'never' })
  })

  it('attaches nothing to a passing test unless attach is "always", and nothing with "never"', (context) => {
    expect(annotationsOf(context, 'a passing test')).toEqual([])
    expect(annotationsOf(context, 'a passing test with attach: "always"').map((annotation) => annotation.message)).toEqual([
      "session 1 (no extensions): Pi's HTML export",
      "session 1 (no extensions): Pi's session file",
    ])
    expect(annotationsOf(context, 'a failing test with attach: "never"')).toEqual([])
  })

  it.fails('a failing test whose session Pi cannot write as JSON', async () => {
    const t = await createTestSession({ attachDir, mockTools: { read: { content: [{ type: 'text', text: 'x' }], details: { bytes: 12n } } } })
    await t.run(when('read', [calls('read', { path: 'a.bin' }), says('done')]))
    expect(t).toHaveSaid('bye')
  })

  it('says so instead of failing the end of a test whose session Pi cannot write as JSON', (context) => {
    expect(annotationsOf(context, 'a failing test whose session Pi cannot write as JSON').map((annotation) => annotation.message)).toEqual([
      'session 1 (no extensions): not attached, Pi cannot write it as JSON (Do not know how to serialize a BigInt)',
    ])
  })
})
