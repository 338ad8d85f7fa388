// A failing test carries each of its sessions: Pi's HTML export and Pi's session file, as Vitest annotations.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SessionManager } from '@mariozechner/pi-coding-agent'
import { createTestSession } from '../environment/index.js'
import { ROOT, runVitest } from './support/consumer.js'

interface Annotation {
  type: string
  message: string
  attachment?: { path: string; contentType?: string }
}

describe('sessions attached to a failing test', () => {
  const out = mkdtempSync(join(tmpdir(), 'pi-attach-'))
  let tests: Record<string, { state: string; annotations: Annotation[] }>

  beforeAll(async () => {
    const env = { ATTACH_OUT: out, TMPDIR: out }
    const { result } = await runVitest(join(ROOT, 'test/fixtures/attach'), ['--reporter=./annotations-reporter.ts'], { outputFile: join(out, 'report.json'), env, timeoutMs: 120_000 })
    if (!existsSync(join(out, 'annotations.json'))) throw new Error(`the fixture run wrote no annotations.json:\n${result.outputTail}`)
    tests = JSON.parse(readFileSync(join(out, 'annotations.json'), 'utf8'))
  })
  afterAll(() => rmSync(out, { recursive: true, force: true }))

  const messages = (name: string) => tests[name]!.annotations.map((a) => `${a.type}: ${a.message}`)

  it('attaches every session of a failing test, numbered, as HTML and as JSONL', () => {
    expect(tests['fails with two sessions']!.state).toBe('failed')
    // Sessions end in reverse order, as Vitest runs a test's onTestFinished hooks.
    expect(messages('fails with two sessions')).toEqual([
      "pi:session: session 2 (no extensions): Pi's HTML export",
      "pi:session: session 2 (no extensions): Pi's session file",
      "pi:session: session 1 (extensions: <inline:1>): Pi's HTML export",
      "pi:session: session 1 (extensions: <inline:1>): Pi's session file",
    ])
    const [page, file] = tests['fails with two sessions']!.annotations.slice(2).map((a) => a.attachment!)
    // Vitest copied each into its attachments dir, which its reporters read.
    expect(page!.path.startsWith(join(out, 'attachments'))).toBe(true)
    expect(page!.contentType).toBe('text/html')
    expect(file!.contentType).toBe('application/jsonl')
    // Pi's own page, with the turn in it.
    expect(readFileSync(page!.path, 'utf8')).toMatch(/^<!DOCTYPE html>/i)
    const saved = SessionManager.open(file!.path).buildSessionContext().messages
    expect(saved.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([[{ type: 'text', text: 'clean up' }]])
    expect(saved.filter((m) => m.role === 'toolResult').map((m) => [m.toolName, m.isError])).toEqual([['bash', true]])
  })

  it('keeps one copy of each file: Vitest\'s, listed for the next run to remove', () => {
    const copies = Object.values(tests).flatMap((test) => test.annotations.flatMap((a) => (a.attachment ? [a.attachment.path] : [])))
    expect(copies.length).toBeGreaterThan(0)
    expect(readFileSync(join(out, 'pi-sessions', '.attached-files'), 'utf8').split('\n').filter(Boolean).sort()).toEqual([...copies].sort())
    // What was written under attachDir went once Vitest had its copy.
    expect(readdirSync(join(out, 'pi-sessions'))).toEqual(['.attached-files'])
  })

  it('gives each test its own files, whatever its name: a readable slug and a hash of the whole name', () => {
    const transcript = (name: string) => {
      const file = tests[name]!.annotations.find((a) => a.attachment?.contentType === 'application/jsonl')!.attachment!.path
      return SessionManager.open(file).buildSessionContext().messages.filter((m) => m.role === 'user').map((m) => m.content)
    }
    expect(transcript('a b')).toEqual([[{ type: 'text', text: 'a b' }]])
    expect(transcript('a/b')).toEqual([[{ type: 'text', text: 'a/b' }]])
    expect(transcript('日本語のテスト')).toEqual([[{ type: 'text', text: '日本語のテスト' }]])
  })

  it('attaches nothing to a passing test, unless attach is "always"', () => {
    expect(tests['passes']!).toEqual({ state: 'passed', annotations: [] })
    expect(tests['passes with attach: always']!.state).toBe('passed')
    expect(messages('passes with attach: always')).toEqual([
      "pi:session: session 1 (no extensions): Pi's HTML export",
      "pi:session: session 1 (no extensions): Pi's session file",
    ])
  })

  it('attaches nothing with attach: "never"', () => {
    expect(tests['fails with attach: never']).toEqual({ state: 'failed', annotations: [] })
  })

  it('says so, instead of failing, when Pi cannot write the session as JSON', () => {
    expect(tests['fails with details Pi cannot write as JSON']!.state).toBe('failed')
    expect(messages('fails with details Pi cannot write as JSON')).toEqual([
      'pi:session: session 1 (no extensions): not attached, Pi cannot write it as JSON (Do not know how to serialize a BigInt)',
    ])
  })

  it('attaches the session fixture', () => {
    expect(messages('fails with the session fixture')).toEqual([
      "pi:session: the session fixture (no extensions): Pi's HTML export",
      "pi:session: the session fixture (no extensions): Pi's session file",
    ])
  })
})

it('names a wrong attach option', async () => {
  await expect(createTestSession({ attach: 'sometimes' as 'always' })).rejects.toThrow(
    'createTestSession: option "attach" must be "on-failure", "always" or "never", got "sometimes" (a string)',
  )
})
