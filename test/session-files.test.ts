// t.saveSession(path): the session in Pi's own format, which Pi's SessionManager opens as it would a real one.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionManager, type ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, thinks, when } from '../environment/index.js'

const dir = mkdtempSync(join(tmpdir(), 'pi-saved-sessions-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Blocks every rm, and asks before each write. */
function guard(pi: ExtensionAPI) {
  pi.on('tool_call', async (event, ctx) => {
    if (event.toolName === 'bash' && String(event.input.command).startsWith('rm ')) return { block: true, reason: 'no rm' }
    if (event.toolName === 'write' && !(await ctx.ui.confirm('Write?', String(event.input.path)))) return { block: true, reason: 'declined' }
    return undefined
  })
}

describe('t.saveSession(path)', () => {
  it("writes the session as Pi's session file, which SessionManager.open reads back message for message", async () => {
    const t = await createTestSession({ extensions: [guard], mockTools: { bash: 'ok', write: 'written' }, mockUI: { confirm: false } })
    await t.run(
      when('clean up', [thinks('remove dist'), calls('bash', { command: 'rm -rf dist' }), says('rm is blocked')]),
      when('save a note', [calls('write', { path: 'note.md', content: 'hi' }), says('declined')]),
    )
    const file = t.saveSession(join(dir, 'two-turns.jsonl'))
    expect(file).toBe(join(dir, 'two-turns.jsonl'))

    const opened = SessionManager.open(file)
    expect(opened.buildSessionContext().messages).toEqual(t.session.messages)
    expect(opened.getHeader()).toMatchObject({ type: 'session', cwd: t.cwd })
    // Blocked calls are in the file as Pi wrote them: an error result with the reason.
    const results = opened.buildSessionContext().messages.filter((m) => m.role === 'toolResult')
    expect(results.map((m) => [m.toolName, m.isError])).toEqual([
      ['bash', true],
      ['write', true],
    ])
  })

  it('saves at any time: before the first turn, between turns and after dispose()', async () => {
    const t = await createTestSession()
    const before = SessionManager.open(t.saveSession(join(dir, 'before.jsonl')))
    expect(before.buildSessionContext().messages).toEqual([])
    await t.run(when('hello', [says('hi')]))
    const between = SessionManager.open(t.saveSession(join(dir, 'between.jsonl')))
    // 1.x also keeps `system` messages (the prompt it started with): the same on both sides.
    expect(between.buildSessionContext().messages).toEqual(t.session.messages)
    expect(t.session.messages.map((m) => m.role)).toContain('assistant')
    await t.dispose()
    const after = SessionManager.open(t.saveSession(join(dir, 'nested', 'after.jsonl')))
    expect(after.buildSessionContext().messages).toEqual(t.session.messages)
    // One JSON object per line, the header first.
    const lines = readFileSync(join(dir, 'nested', 'after.jsonl'), 'utf8').trimEnd().split('\n')
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'session' })
  })

  it('names a bad path', async () => {
    const t = await createTestSession()
    expect(() => t.saveSession('' as string)).toThrow('saveSession(path): path must be a file path (a non-empty string), got ""')
    expect(() => t.saveSession(dir)).toThrow(new RegExp(`^saveSession\\("${dir}"\\): EISDIR`))
  })
})
