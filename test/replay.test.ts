// replay(file): a session recorded with Pi's own session manager (test/fixtures/replay/record.mjs, one
// file per Pi line) runs again as a script, on either line, and a changed decision of the extension fails.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, replay, says, when, type MockUIOptions } from '../environment/index.js'
// @ts-expect-error: plain JavaScript, without declarations
import guard from './fixtures/replay/guard.js'

const GUARD = './test/fixtures/replay/guard.js'
const fixture = (line: string) => `test/fixtures/replay/session-${line}.jsonl`
/** The dialogs as the user answered them when the session was recorded. */
const AS_RECORDED: MockUIOptions = { confirm: (_title, command) => command === 'rm -rf build' }

/** The file's messages of one role, as Pi wrote them. */
function recorded(file: string, role: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; message?: Record<string, unknown> })
    .flatMap((entry) => (entry.type === 'message' && entry.message!.role === role ? [entry.message!] : []))
}

describe.each(['0.73', '1.x'])('a session recorded on Pi %s', (line) => {
  const file = fixture(line)

  it('replays: each prompt a turn, each assistant message one step with its blocks and call ids, the recorded results answering', async () => {
    const cassette = replay(file)
    expect(cassette.turns.map((turn) => turn.prompt)).toEqual(['Clean the build and tell me what is stale', 'Also clear dist and the system cache', 'Run the tests', 'Try again'])
    expect(Object.keys(cassette.mockTools).sort()).toEqual(['bash', 'lookup', 'read'])
    const t = await createTestSession({ extensions: [GUARD], mockTools: cassette.mockTools, mockUI: AS_RECORDED })
    await t.run(...cassette.turns)

    // The model sent what the recorded one sent, message for message: text, thinking and calls with their ids.
    const assistant = t.events.messages.filter((message) => message.role === 'assistant')
    expect(assistant.map((message) => message.content)).toEqual(recorded(file, 'assistant').map((message) => message.content))
    expect(assistant.map((message) => message.stopReason)).toEqual(['toolUse', 'toolUse', 'stop', 'toolUse', 'stop', 'toolUse', 'stop', 'error'])
    expect(assistant.at(-1)).toMatchObject({ errorMessage: '529 overloaded' })
    // Two calls in one message: one step, the playbook's first.
    expect(t.events.toolCalls.filter((call) => call.step === 1).map((call) => call.toolCallId)).toEqual(['toolu_01HsV4pZ9rNotes', 'toolu_01Kq7LookupBuild'])
    expect(t.events.blockedCalls().map((call) => call.blockReason)).toEqual(['Blocked by the user: rm -rf dist', 'sudo is not allowed: sudo rm -rf /var/cache/app'])
    expect(t.events.toolResults.map((result) => [result.toolCallId, result.text, result.isError])).toEqual(
      recorded(file, 'toolResult').map((result) => [result.toolCallId, (result.content as { text: string }[])[0]!.text, result.isError]),
    )
    expect(t.events.toolResultsFor('lookup')).toMatchObject([{ mocked: true }])
    expect(t).toHavePrompted('confirm', 'Run rm -rf?', { answer: false })
  })

  it("answers a tool with the test's own mock, and runs a tool left out", async () => {
    const { lookup: _runIt, ...mockTools } = replay(file).mockTools
    const t = await createTestSession({ extensions: [GUARD], mockTools: { ...mockTools, read: 'fresh notes' }, mockUI: AS_RECORDED })
    await t.run(...replay(file).turns)
    expect(t).toHaveToolResult('read', { text: 'fresh notes' })
    expect(t.events.toolResultsFor('lookup')).toMatchObject([{ text: 'build: stale since Monday', mocked: false }])
  })

  it("fails the run on the test's own call to a tool the recording answers, naming the tool and its params", async () => {
    const cassette = replay(file)
    // propagateErrors: false lets a tool's failure through; this is the test's mistake, not the tool's.
    const t = await createTestSession({ extensions: [GUARD], mockTools: cassette.mockTools, mockUI: AS_RECORDED, propagateErrors: false })
    const message =
      `Unhandled tool call read({"path":"TODO.md"}) (toolCallId call_1_1): ${file} has no such call, and its results answer only the recording's own calls; ` +
      'mock "read" for the test\'s own ({ ...cassette.mockTools, read: ... }) or leave it out to run it'
    await expect(t.run(when('What is left to do?', [calls('read', { path: 'TODO.md' }), says('Nothing.')]))).rejects.toThrow(message)
    // The model was told so too, as the tool's error.
    expect(t.events.toolResultsFor('read')).toMatchObject([{ isError: true, text: message }])
  })

  it("answers a call only with its own tool's recorded result: another tool's call with that id is unhandled", async () => {
    const { read } = replay(file).mockTools as Record<string, (params: object, call: { toolCallId: string }) => unknown>
    expect(read!({ path: 'NOTES.md' }, { toolCallId: 'toolu_01HsV4pZ9rNotes' })).toMatchObject({ isError: false })
    // The id of the recording's lookup call: its result is lookup's, never read's.
    expect(() => read!({ path: 'NOTES.md' }, { toolCallId: 'toolu_01Kq7LookupBuild' })).toThrow(
      `Unhandled tool call read({"path":"NOTES.md"}) (toolCallId toolu_01Kq7LookupBuild): ${file} has no such call`,
    )
  })

  it('fails, naming the turn and step of the recording, when the extension blocks a call that ran (a dialog answered otherwise)', async () => {
    const cassette = replay(file)
    const t = await createTestSession({ extensions: [GUARD], mockTools: cassette.mockTools, mockUI: { confirm: false } })
    const assistantLine = line === '0.73' ? 8 : 9
    await expect(t.run(...cassette.turns)).rejects.toThrow(
      [
        `Replay differs from the recording at turn 1 ("Clean the build and tell me what is stale"), step 2 (${file}:${assistantLine}): call toolu_01Rm8CleanBuild bash({"command":"rm -rf build"})`,
        `  recorded: it ran and returned "removed build/" (line ${assistantLine + 1})`,
        '  now: the extension blocked it: "Blocked by the user: rm -rf build"',
      ].join('\n'),
    )
  })

  it('fails when a call that ran is refused now: its tool is gone and its mock left out', async () => {
    const { lookup: _left, ...mockTools } = replay(file).mockTools
    // Without the extension that registered it, Pi answers "Tool lookup not found" without running anything.
    const t = await createTestSession({ mockTools, propagateErrors: false })
    const assistantLine = line === '0.73' ? 5 : 6
    await expect(t.run(...replay(file).turns)).rejects.toThrow(
      [
        `Replay differs from the recording at turn 1 ("Clean the build and tell me what is stale"), step 1 (${file}:${assistantLine}): call toolu_01Kq7LookupBuild lookup({"key":"build"})`,
        `  recorded: it ran and returned "build: stale since Monday" (line ${assistantLine + 2})`,
        '  now: Pi did not run it (a tool missing, arguments it rejects): "Tool lookup not found"',
        'Pi refuses the call now: is "lookup" still registered with these arguments? Keep its mock (cassette.mockTools), or record the session anew.',
      ].join('\n'),
    )
  })
})

describe('a call blocked now with another reason than the recorded one', () => {
  // The guard as recorded, but its sudo rule words the block otherwise.
  const reworded = (pi: ExtensionAPI) =>
    guard(
      Object.assign(Object.create(pi) as ExtensionAPI, {
        on: (event: string, handler: (...args: unknown[]) => unknown) =>
          pi.on(event as 'tool_call', async (...args: unknown[]) => {
            const decision = (await handler(...args)) as { block?: boolean; reason?: string } | undefined
            return decision?.block ? { ...decision, reason: decision.reason!.replace('sudo is not allowed', 'no sudo here') } : decision
          }),
      }),
    )

  it.each(['0.73', '1.x'])('fails in a file of Pi %s, naming the call and the new reason', async (line) => {
    const file = fixture(line)
    const cassette = replay(file)
    const t = await createTestSession({ extensions: [reworded], mockTools: cassette.mockTools, mockUI: AS_RECORDED })
    await expect(t.run(...cassette.turns)).rejects.toThrow(/Replay differs from the recording at turn 2 .*call toolu_01SudoCache[\s\S]*now: the extension blocked it: "no sudo here: sudo rm -rf \/var\/cache\/app"/)
  })
})

describe('a call the recording shows was not run', () => {
  it('fails when it runs now (Pi 1.x writes which calls ran)', async () => {
    const file = fixture('1.x')
    const cassette = replay(file)
    const t = await createTestSession({ extensions: [GUARD], mockTools: cassette.mockTools, mockUI: { confirm: true } })
    await expect(t.run(...cassette.turns)).rejects.toThrow(
      [
        `Replay differs from the recording at turn 2 ("Also clear dist and the system cache"), step 4 (${file}:13): call toolu_01Rm9CleanDist bash({"command":"rm -rf dist"})`,
        '  recorded: Pi did not run it (a block, or a call Pi refused): "Blocked by the user: rm -rf dist" (line 14)',
        '  now: it ran and returned the error "Blocked by the user: rm -rf dist"',
      ].join('\n'),
    )
  })

  it('counts as a failure of the tool in a Pi 0.73 file, which does not say whether a call with an error result ran', async () => {
    const cassette = replay(fixture('0.73'))
    const t = await createTestSession({ extensions: [GUARD], mockTools: cassette.mockTools, mockUI: { confirm: true } })
    await t.run(...cassette.turns)
    expect(t.events.blockedCalls().map((call) => call.toolCallId)).toEqual(['toolu_01SudoCache'])
  })
})

describe('the file, as replay reads it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pi-replay-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const HEADER = { type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/repo' }
  /** A session file of these lines, entries chained by parentId as Pi writes them. */
  function sessionFile(name: string, lines: unknown[]): string {
    const path = join(dir, name)
    let parentId: string | null = null
    const text = lines.map((line, index) => {
      if (typeof line === 'string') return line
      const entry = index === 0 ? line : { id: `e${index}`, parentId, timestamp: HEADER.timestamp, ...(line as object) }
      if (index > 0) parentId = `e${index}`
      return JSON.stringify(entry)
    })
    writeFileSync(path, `${text.join('\n')}\n`)
    return path
  }
  const user = (text: string) => ({ type: 'message', message: { role: 'user', content: [{ type: 'text', text }] } })
  const asks = (id: string) => ({ type: 'message', message: { role: 'assistant', content: [{ type: 'toolCall', id, name: 'read', arguments: { path: 'a' } }], stopReason: 'toolUse' } })
  const result = (id: string) => ({ type: 'message', message: { role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: 'a' }], isError: false } })
  const answers = { type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }], stopReason: 'stop' } }

  it('fails when a call that ran (Pi 1.x marks it) is blocked now, even with its recorded error as the reason', async () => {
    const ran = { type: 'message', message: { ...result('c1').message, content: [{ type: 'text', text: 'no reading a' }], isError: true, durationMs: 3 } }
    const file = sessionFile('ran-then-blocked.jsonl', [HEADER, user('hi'), asks('c1'), ran, answers])
    const cassette = replay(file)
    const blocksRead = (pi: ExtensionAPI) => pi.on('tool_call', () => ({ block: true, reason: 'no reading a' }))
    const t = await createTestSession({ extensions: [blocksRead], mockTools: cassette.mockTools })
    await expect(t.run(...cassette.turns)).rejects.toThrow(
      [`  recorded: it ran and returned the error "no reading a" (line 4)`, '  now: the extension blocked it: "no reading a"'].join('\n'),
    )
  })

  it.each([
    ['is missing', () => join(dir, 'missing.jsonl'), /missing\.jsonl: cannot read the session file: ENOENT/],
    ['is empty', () => sessionFile('empty.jsonl', []), /empty\.jsonl: empty: a Pi session file starts with a \{"type":"session",\.\.\.\} header line/],
    ['is not JSONL', () => sessionFile('text.jsonl', [HEADER, user('hi'), '{"type": "message",']), /text\.jsonl:3: not JSON \(.*\): a Pi session file has one JSON object per line/],
    ['has no header', () => sessionFile('headless.jsonl', [user('hi')]), /headless\.jsonl:1: not a Pi session header: .* this one has type "message"/],
    ['is of another version', () => sessionFile('v2.jsonl', [{ ...HEADER, version: 2 }, user('hi')]), /v2\.jsonl:1: session version 2; replay reads version 3/],
    ['has a tool call without result', () => sessionFile('open.jsonl', [HEADER, user('hi'), asks('c1'), answers]), /open\.jsonl:3: tool call c1 \(read\) has no result in the session/],
    ['has a result without call', () => sessionFile('orphan.jsonl', [HEADER, user('hi'), result('c9'), answers]), /orphan\.jsonl:3: a tool result for call "c9", which no assistant message before it made/],
    ['stops inside a turn', () => sessionFile('cut.jsonl', [HEADER, user('hi'), asks('c1'), result('c1')]), /cut\.jsonl:3: turn 1 \("hi"\) ends with these tool calls' results and no answer of the model to them/],
    ['answers before any prompt', () => sessionFile('early.jsonl', [HEADER, answers]), /early\.jsonl:2: the model answers before any user prompt/],
    ['has a broken parent chain', () => sessionFile('chain.jsonl', [HEADER, user('hi'), { ...answers, parentId: 'nope' }]), /chain\.jsonl:3: the entry's parentId "nope" names no entry of the file/],
  ])('fails when the file %s, naming file, line and problem', (_what, path, message) => {
    expect(() => replay(path())).toThrow(message)
  })

  it('reads a file an editor saved with a byte order mark, and writes one elsewhere visibly in the error', () => {
    const path = sessionFile('bom.jsonl', [HEADER, user('hi'), answers])
    writeFileSync(path, `\uFEFF${readFileSync(path, 'utf8')}`)
    expect(replay(path).turns.map((turn) => turn.prompt)).toEqual(['hi'])
    const inside = sessionFile('bom-inside.jsonl', [HEADER, `\uFEFF${JSON.stringify({ id: 'e1', parentId: null, timestamp: HEADER.timestamp, ...user('hi') })}`])
    expect(() => replay(inside)).toThrow(/bom-inside\.jsonl:2: not JSON \(.*\\uFEFF.*\): a Pi session file has one JSON object per line/)
  })

  it.each([
    ['a compaction', { type: 'compaction', summary: 's', firstKeptEntryId: 'e1', tokensBefore: 1 }, /compact\.jsonl:3: a compaction entry: replay does not replay Pi's summaries/],
    ['an answer cut at the token limit', { type: 'message', message: { role: 'assistant', content: [], stopReason: 'length' } }, /compact\.jsonl:3: the assistant message ended with stop reason "length"/],
  ])('fails on %s, which it does not replay', (_what, entry, message) => {
    expect(() => replay(sessionFile('compact.jsonl', [HEADER, user('hi'), entry]))).toThrow(message)
  })

  it('leaves out a failed attempt that Pi retried (the harness does not retry), and replays a last one', () => {
    const failed = { type: 'message', message: { role: 'assistant', content: [], stopReason: 'error', errorMessage: '529 overloaded' } }
    const turns = replay(sessionFile('retry.jsonl', [HEADER, user('hi'), failed, answers, user('again'), failed])).turns
    expect(turns.map((turn) => turn.actions)).toEqual([[{ kind: 'say', text: 'Done.' }], [{ kind: 'fail', message: '529 overloaded' }]])
  })

  it('replays a file of version 3 with a branch: the one that ends at the last entry', () => {
    const path = sessionFile('branch.jsonl', [HEADER, user('first'), answers, { ...user('second'), parentId: 'e1' }, { ...answers, parentId: 'e3' }])
    // e3 hangs off e1 (the first prompt): the branch is first prompt → second prompt → answer.
    expect(replay(path).turns.map((turn) => [turn.prompt, turn.actions.length])).toEqual([['first', 0], ['second', 1]])
  })

  it('reads a long session with work that grows as the file does, not as its square', () => {
    const turns = Array.from({ length: 1000 }, (_, n) => [user(`turn ${n}`), asks(`c${n}`), result(`c${n}`), answers]).flat()
    const path = sessionFile('long.jsonl', [HEADER, ...turns])
    // The work counted: elements scanned by searches through arrays (a branch walk that searched its own path was quadratic).
    let scanned = 0
    const { includes, indexOf } = Array.prototype
    const counting = <F extends (...args: never[]) => unknown>(search: F): F =>
      function (this: unknown[], ...args: Parameters<F>) {
        scanned += this.length
        return search.apply(this, args)
      } as F
    Array.prototype.includes = counting(includes)
    Array.prototype.indexOf = counting(indexOf)
    try {
      expect(replay(path).turns).toHaveLength(1000)
    } finally {
      Array.prototype.includes = includes
      Array.prototype.indexOf = indexOf
    }
    expect(scanned).toBeLessThan(10 * turns.length)
  })
})
