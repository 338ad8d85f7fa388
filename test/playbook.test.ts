import { Type } from 'typebox'
import { afterEach, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, fails, parallel, responds, says, thinks, when, type TestSession } from '../src/index.js'

/** An extension with a slow and a fast tool, so parallel completion order differs from call order. */
function timedTools(pi: ExtensionAPI) {
  for (const [name, ms] of [['slow', 30], ['fast', 1]] as const) {
    pi.registerTool({
      name,
      label: name,
      description: `answers after ${ms} ms`,
      parameters: Type.Object({ id: Type.String() }),
      async execute(_toolCallId, params) {
        await new Promise((resolve) => setTimeout(resolve, ms))
        return { content: [{ type: 'text', text: `${name}:${params.id}` }], details: {} }
      },
    })
  }
}

describe('playbook', () => {
  let t: TestSession | undefined
  afterEach(async () => {
    await t?.dispose()
    t = undefined
  })

  it('runs several tool calls from ONE model message in parallel, pairing results by toolCallId', async () => {
    t = await createTestSession({ extensions: [timedTools] })
    await t.run(when('both', [parallel(calls('slow', { id: 'a' }), calls('fast', { id: 'b' })), says('done')]))
    const assistant = t.events.messages.find((m) => m.role === 'assistant')!
    expect(assistant.role === 'assistant' && assistant.content.map((c) => c.type)).toEqual(['toolCall', 'toolCall'])
    // Pi finishes the fast tool first; each result still carries the id of its call.
    const ends = t.events.all.filter((e) => e.type === 'tool_execution_end').map((e) => e.toolName)
    expect(ends).toEqual(['fast', 'slow'])
    const byId = Object.fromEntries(t.events.toolResults.map((r) => [r.toolCallId, r.text]))
    expect(t.events.toolCalls.map((c) => [c.toolName, byId[c.toolCallId], c.step])).toEqual([
      ['slow', 'slow:a', 1],
      ['fast', 'fast:b', 1],
    ])
  })

  it('sends text, thinking and calls in ONE message with responds(...), in order, as a real model does', async () => {
    t = await createTestSession({ extensions: [timedTools] })
    await t.run(when('look', [responds(thinks('Both.'), says('Looking.'), calls('slow', { id: 'a' }), calls('fast', { id: 'b' })), says('done')]))
    const assistant = t.events.messages.filter((m) => m.role === 'assistant')
    expect(assistant[0]!.role === 'assistant' && assistant[0]!.content.map((c) => c.type)).toEqual(['thinking', 'text', 'toolCall', 'toolCall'])
    expect(assistant).toHaveLength(2)
    expect(t.events.toolCalls.map((c) => [c.toolCallId, c.step])).toEqual([['call_1_1', 1], ['call_1_2', 1]])
  })

  it('passes .then the call record too, so a callback sees whether the call was blocked', async () => {
    const seen: unknown[] = []
    const guard = (pi: ExtensionAPI) => pi.on('tool_call', (event) => (event.toolName === 'slow' ? { block: true, reason: 'too slow' } : undefined))
    t = await createTestSession({ extensions: [timedTools, guard] })
    await t.run(when('try', [calls('slow', { id: 'a' }).then((result, call) => void seen.push([result.text, call?.blocked, call?.blockReason])), says('done')]))
    expect(seen).toEqual([['too slow', true, 'too slow']])
  })

  it('runs them one after the other with toolExecution: sequential', async () => {
    t = await createTestSession({ extensions: [timedTools], toolExecution: 'sequential' })
    await t.run(when('both', [parallel(calls('slow', { id: 'a' }), calls('fast', { id: 'b' })), says('done')]))
    expect(t.events.all.filter((e) => e.type === 'tool_execution_end').map((e) => e.toolName)).toEqual(['slow', 'fast'])
  })

  it('streams real deltas, so message_update handlers see thinking and text', async () => {
    const seen: string[] = []
    t = await createTestSession({
      extensions: [(pi) => pi.on('message_update', (event) => void seen.push(event.assistantMessageEvent.type))],
    })
    await t.run(when('think', [thinks('let me see'), says('answer')]))
    // Pi turns the stream's `start` into message_start; every block event arrives as a message_update.
    expect(seen).toEqual(['thinking_start', 'thinking_delta', 'thinking_end', 'text_start', 'text_delta', 'text_end'])
    const last = t.session.messages.at(-1)
    expect(last?.role === 'assistant' && last.content).toEqual([
      { type: 'thinking', thinking: 'let me see' },
      { type: 'text', text: 'answer' },
    ])
  })

  it('fails a model request with stop reason error, so an extension can react to provider errors', async () => {
    const errors: string[] = []
    t = await createTestSession({
      extensions: [
        (pi) =>
          pi.on('turn_end', (event) => {
            if (event.message.role === 'assistant' && event.message.stopReason === 'error') errors.push(event.message.errorMessage ?? '')
          }),
      ],
    })
    await t.run(when('go', [fails('429 rate limit exceeded')]))
    expect(errors).toEqual(['429 rate limit exceeded'])
    expect(t.session.agent.state.errorMessage).toBe('429 rate limit exceeded')
  })

  it('runs a turn with no model actions when an input handler answers it', async () => {
    t = await createTestSession({ extensions: [(pi) => pi.on('input', () => ({ action: 'handled' }))] })
    await t.run(when('handled locally'))
    expect(t.events.modelRequests).toHaveLength(0)
  })

  it('passes a result to .then and resolves late-bound params after it', async () => {
    let id = ''
    t = await createTestSession({ mockTools: { bash: (p) => (p.command === 'make-id' ? 'created PLAN-42' : `got ${p.command}`) } })
    await t.run(
      when('chain', [
        calls('bash', { command: 'make-id' }).then((result) => {
          id = /PLAN-\d+/.exec(result.text)![0]
        }),
        calls('bash', () => ({ command: `use ${id}` })),
        says('ok'),
      ]),
    )
    expect(t.events.toolResultsFor('bash').map((r) => r.text)).toEqual(['created PLAN-42', 'got use PLAN-42'])
  })

  it('refuses to be awaited as a promise', async () => {
    await expect(async () => await calls('bash', { command: 'ls' })).rejects.toThrow(
      'calls("bash") is a playbook action, not a promise: pass it to when(prompt, [...])',
    )
  })

  it('records what the model was sent on every request', async () => {
    t = await createTestSession({ systemPrompt: 'You are a test agent.', mockTools: { bash: 'listing' } })
    await t.run(when('list files', [calls('bash', { command: 'ls' }), says('done')]))
    expect(t.events.modelRequests.map((r) => r.step)).toEqual([1, 2])
    expect(t.events.modelRequests[0]!.systemPrompt).toMatch(/^You are a test agent\./)
    expect(t.events.modelRequests[0]!.tools).toEqual(['read', 'bash', 'edit', 'write'])
    expect(t.events.modelRequests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult'])
  })

  it('says exactly where the script ran out when Pi asks the model for more', async () => {
    t = await createTestSession({ mockTools: { bash: 'ok' } })
    await expect(t.run(when('clean up', [calls('bash', { command: 'ls' }), calls('bash', { command: 'rm x' })]))).rejects.toThrow(
      [
        'Playbook exhausted: Pi asked the model for step 3, but turn 1 ("clean up") has only 2 step(s).',
        '  Last consumed: step 2, calls("bash", {"command":"rm x"})',
        '  Remaining: none',
        'Pi asks the model again after every tool result: end the turn with says(...), or add the step Pi needed.',
      ].join('\n'),
    )
  })

  it('says exactly which steps were left when the turn ended early', async () => {
    t = await createTestSession({ mockTools: { bash: 'ok', write: 'written' } })
    await expect(
      t.run(when('write it', [calls('bash', { command: 'ls' }), says('done'), calls('write', { path: 'a', content: 'b' }), says('really done')])),
    ).rejects.toThrow(
      [
        'Playbook not consumed: turn 1 ("write it") ended after 2 of 4 step(s).',
        '  Last consumed: step 2, says("done")',
        '  Remaining:',
        '    step 3: calls("write", {"path":"a","content":"b"})',
        '    step 4: says("really done")',
        'Pi stopped asking the model before the script ran out: a tool call may have been blocked or failed,',
        'an extension may have handled the prompt, or a step may have ended the turn early (says(...), fails(...) or aborts()).',
        '',
        'Session timeline:',
        '  turn 1: "write it"',
        '    bash({"command":"ls"}) → "ok"',
        '    said "done"',
      ].join('\n'),
    )
    expect(t.playbook).toEqual({ consumed: 2, remaining: 0 })
  })

  it('numbers steps across turns and keeps the transcript between them', async () => {
    t = await createTestSession({ mockTools: { bash: 'ok' } })
    await t.run(when('one', [calls('bash', { command: 'a' }), says('first')]), when('two', [thinks('hm'), says('second')]))
    expect(t.playbook).toEqual({ consumed: 3, remaining: 0 })
    expect(t.events.modelRequests.map((r) => r.step)).toEqual([1, 2, 3])
    expect(t.events.modelRequests[2]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant', 'user'])
    expect(t.events.lastAssistantText()).toBe('second')
  })
})
