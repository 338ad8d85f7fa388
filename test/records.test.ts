import { afterEach, describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from '../src/index.js'
import { LAST_RUN_EVENT } from './support/pi-line.js'

describe('records', () => {
  let t: TestSession | undefined
  afterEach(async () => {
    await t?.dispose()
    t = undefined
  })

  it('knows a block from the hook: a tool failing on its own is not a block, a throwing tool_call handler is', async () => {
    t = await createTestSession({
      propagateErrors: false,
      extensions: [
        (pi) =>
          pi.on('tool_call', (event) => {
            if ((event.input as { path?: string }).path === 'secret') return { block: true, reason: 'Blocked: secret' }
            if ((event.input as { path?: string }).path === 'crash') throw new Error('policy file unreadable')
            if ((event.input as { path?: string }).path === 'quiet') return { block: true }
          }),
      ],
      // The mock fails with text that looks like a block: it must still not be recorded as one.
      mockTools: { read: (p) => ({ content: [{ type: 'text', text: `Blocked by nobody: ${p.path} missing` }], isError: true }) },
    })
    await t.run(
      when('read', [
        calls('read', { path: 'secret' }),
        calls('read', { path: 'crash' }),
        calls('read', { path: 'quiet' }),
        calls('read', { path: 'gone' }),
        says('ok'),
      ]),
    )
    expect(t.events.toolCalls.map((c) => [c.input.path, c.blocked, c.blockReason])).toEqual([
      ['secret', true, 'Blocked: secret'],
      ['crash', true, 'policy file unreadable'],
      ['quiet', true, 'Tool execution was blocked'],
      ['gone', false, undefined],
    ])
    expect(t.events.toolResults.map((r) => [r.text, r.isError, r.mocked])).toEqual([
      ['Blocked: secret', true, false],
      ['policy file unreadable', true, false],
      ['Tool execution was blocked', true, false],
      ['Blocked by nobody: gone missing', true, true],
    ])
    expect(t.events.blockedCalls().map((c) => c.input.path)).toEqual(['secret', 'crash', 'quiet'])
  })

  it('keeps raw events, messages, tool sequence and helpers', async () => {
    t = await createTestSession({ mockTools: { bash: 'ok', read: 'text' } })
    await t.run(when('go', [calls('bash', { command: 'ls' }), calls('read', { path: 'x' }), calls('bash', { command: 'pwd' }), says('finished')]))
    expect(t.events.toolSequence()).toEqual(['bash', 'read', 'bash'])
    expect(t.events.toolCallsFor('bash').map((c) => c.input.command)).toEqual(['ls', 'pwd'])
    expect(t.events.toolResultsFor('read').map((r) => r.text)).toEqual(['text'])
    expect(t.events.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant', 'toolResult', 'assistant', 'toolResult', 'assistant'])
    expect(t.events.all[0]!.type).toBe('agent_start')
    expect(t.events.all.at(-1)!.type).toBe(LAST_RUN_EVENT)
    expect(t.events.lastAssistantText()).toBe('finished')
  })
})
