import { Type } from 'typebox'
import { afterEach, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, when, type TestSession } from '../src/index.js'
import { POWERSHELL } from './support/pi-line.js'

/** Counts every tool_call and tool_result hook, and owns a tool that can fail on its own. */
function hookCounter(counts: Record<string, number>) {
  return (pi: ExtensionAPI) => {
    pi.on('tool_call', (event) => void (counts[`call:${event.toolName}`] = (counts[`call:${event.toolName}`] ?? 0) + 1))
    pi.on('tool_result', (event) => void (counts[`result:${event.toolName}`] = (counts[`result:${event.toolName}`] ?? 0) + 1))
    pi.registerTool({
      name: 'lookup',
      label: 'Lookup',
      description: 'Looks a key up',
      parameters: Type.Object({ key: Type.String() }),
      async execute(_id, params) {
        if (params.key === 'missing') throw new Error(`no entry for ${params.key}`)
        return { content: [{ type: 'text', text: `value of ${params.key}` }], details: { key: params.key } }
      },
    })
  }
}

const NOT_A_RESULT = 'A mock answer that is not a result is a mistake in the test, so it fails the run whatever propagateErrors says.'

describe('mockTools', () => {
  let t: TestSession | undefined
  afterEach(async () => {
    await t?.dispose()
    t = undefined
  })

  it('answers with static text, a whole result or a function of the params', async () => {
    t = await createTestSession({
      mockTools: {
        read: 'file contents',
        write: { content: [{ type: 'text', text: 'Written' }], details: { bytes: 42 } },
        bash: (params) => `$ ${params.command}`,
      },
    })
    await t.run(
      when('work', [calls('read', { path: 'a.txt' }), calls('write', { path: 'b', content: 'x' }), calls('bash', { command: 'ls' }), says('ok')]),
    )
    expect(t.events.toolResults.map((r) => [r.toolName, r.text, r.details, r.mocked])).toEqual([
      ['read', 'file contents', undefined, true],
      ['write', 'Written', { bytes: 42 }, true],
      ['bash', '$ ls', undefined, true],
    ])
  })

  it('reports a mocked result with isError as the tool failing', async () => {
    t = await createTestSession({ mockTools: { bash: { content: [{ type: 'text', text: 'exit 2' }], isError: true } } })
    await t.run(when('fail', [calls('bash', { command: 'false' }), says('it failed')]))
    expect(t.events.toolResultsFor('bash')[0]).toMatchObject({ text: 'exit 2', isError: true, mocked: true })
    expect(t.events.blockedCalls()).toEqual([])
  })

  it('fires tool_call and tool_result exactly once per call, mocked or real', async () => {
    const counts: Record<string, number> = {}
    t = await createTestSession({ extensions: [hookCounter(counts)], mockTools: { bash: 'ok' } })
    await t.run(when('go', [calls('bash', { command: 'ls' }), calls('lookup', { key: 'a' }), says('done')]))
    expect(counts).toEqual({ 'call:bash': 1, 'result:bash': 1, 'call:lookup': 1, 'result:lookup': 1 })
    expect(t.events.toolResultsFor('lookup')[0]).toMatchObject({ text: 'value of a', mocked: false })
  })

  it("mocks an extension's own tool only when it is listed", async () => {
    t = await createTestSession({ extensions: [hookCounter({})], mockTools: { lookup: 'mocked value' } })
    await t.run(when('go', [calls('lookup', { key: 'a' }), says('done')]))
    expect(t.events.toolResultsFor('lookup')[0]).toMatchObject({ text: 'mocked value', mocked: true })
  })

  it('rejects a mockTools name that matches no tool, listing the known ones', async () => {
    await expect(createTestSession({ extensions: [hookCounter({})], mockTools: { bsah: 'typo' } })).rejects.toThrow(
      `mockTools names no tool: "bsah". Known tools: bash, edit, find, grep, lookup, ls, ${POWERSHELL}read, write`,
    )
  })

  it('rejects a tools allowlist that names no tool, listing the known ones', async () => {
    await expect(createTestSession({ extensions: [hookCounter({})], tools: ['read', 'nosuchtool'] })).rejects.toThrow(
      `tools names no tool: "nosuchtool". Known tools: bash, edit, find, grep, lookup, ls, ${POWERSHELL}read, write`,
    )
  })

  it("turns a real tool's throw into a diagnostic naming the step (propagateErrors: true)", async () => {
    t = await createTestSession({ extensions: [hookCounter({})] })
    await expect(t.run(when('look', [calls('lookup', { key: 'a' }), calls('lookup', { key: 'missing' }), says('done')]))).rejects.toThrow(
      [
        'Tool "lookup" threw at playbook step 2 (toolCallId call_2_1): no entry for missing',
        "The tool's own execute() threw. With propagateErrors: true (the default) that fails the run;",
        'to let the extension see it as an error result instead, pass createTestSession({ propagateErrors: false }).',
      ].join('\n'),
    )
  })

  it('fails the run on a mock answer that is not a result, naming the tool and the step', async () => {
    t = await createTestSession({ mockTools: { read: 'a', bash: () => undefined as never } })
    await expect(t.run(when('work', [calls('read', { path: 'a' }), calls('bash', { command: 'ls' }), says('done')]))).rejects.toHaveProperty(
      'message',
      `Mock for tool "bash" at playbook step 2 (toolCallId call_2_1) answered undefined, not a result: return a string or { content: [...] }\n${NOT_A_RESULT}`,
    )
    expect(t.events.lastAssistantText()).not.toBe('done')
  })

  it.each([
    [{ contents: [{ type: 'text', text: 'hi' }] }, 'answered {"contents":[{"type":"text","text":"hi"}]} (an object), which has no content array (did you mean "content"?)'],
    [{ details: { ok: true } }, 'answered {"details":{"ok":true}} (an object), which has no content array'],
    [{ content: 'hi' }, 'answered {"content":"hi"} (an object), whose content is not an array of blocks'],
    [{ content: ['hi'] }, 'answered {"content":["hi"]} (an object), whose content[0] is "hi" (a string), not a { type: "text", text } or { type: "image", data, mimeType } block'],
    [[{ type: 'text', text: 'hi' }], 'answered [{"type":"text","text":"hi"}] (an array), not a result: return { content: [...] } around the blocks'],
    [42, 'answered 42 (a number), not a result: return a string or { content: [...] }'],
  ])('fails the run on the mock answer %j even with propagateErrors: false', async (answered, problem) => {
    t = await createTestSession({ mockTools: { bash: async () => answered as never }, propagateErrors: false })
    await expect(t.run(when('go', [calls('bash', { command: 'ls' }), says('done')]))).rejects.toHaveProperty(
      'message',
      `Mock for tool "bash" at playbook step 1 (toolCallId call_1_1) ${problem}\n${NOT_A_RESULT}`,
    )
  })

  it('lets the extension see a real throw as an error result with propagateErrors: false', async () => {
    t = await createTestSession({ extensions: [hookCounter({})], propagateErrors: false })
    await t.run(when('look', [calls('lookup', { key: 'missing' }), says('recovered')]))
    expect(t.events.toolResultsFor('lookup')[0]).toMatchObject({ text: 'no entry for missing', isError: true, mocked: false })
    expect(t.events.toolCallsFor('lookup')[0]!.blocked).toBe(false)
    expect(t.events.lastAssistantText()).toBe('recovered')
  })

  it('runs real built-in tools in the temp cwd when they are not mocked', async () => {
    t = await createTestSession({ propagateErrors: false })
    await t.run(when('write and read', [calls('write', { path: 'note.txt', content: 'hello' }), calls('read', { path: 'note.txt' }), says('ok')]))
    expect(t.events.toolResultsFor('read')[0]).toMatchObject({ text: 'hello', isError: false, mocked: false })
  })

  it('keeps only the allowlisted tools with `tools`', async () => {
    t = await createTestSession({ tools: ['read'], mockTools: { read: 'x' }, propagateErrors: false })
    expect(t.session.getActiveToolNames()).toEqual(['read'])
    await t.run(when('try bash', [calls('bash', { command: 'ls' }), says('no bash')]))
    expect(t.events.toolResultsFor('bash')[0]).toMatchObject({ text: 'Tool bash not found', isError: true })
  })
})
