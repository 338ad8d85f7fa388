import { stripVTControlCharacters } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from '../src/index.js'

const INSPECTOR = 'test/fixtures/mock-world/inspector.ts'

describe('a mocked world from a mock spec', () => {
  let t: TestSession | undefined
  afterEach(async () => {
    await t?.dispose()
    t = undefined
  })
  const inspect = async () => {
    await t!.command('inspect')
    return JSON.parse(String(t!.events.uiCallsFor('notify').at(-1)!.args[0]))
  }

  it('pre-seeds the session: name, file, state, messages, entries and branch', async () => {
    t = await createTestSession({
      extensions: [INSPECTOR],
      mockSpec: {
        schema: 'pi.ext.mock_spec.v1',
        extension_id: 'inspector',
        session: {
          name: 'refactor',
          file: '/work/sessions/refactor.jsonl',
          state: { ticket: 'PI-7' },
          messages: [
            { role: 'user', content: 'earlier question' },
            { role: 'assistant', content: [{ type: 'text', text: 'earlier answer' }] },
          ],
          entries: [{ type: 'custom', customType: 'plan', data: { step: 1 } }],
        },
      },
    })
    // Pi itself records the session's thinking level when it starts.
    expect(await inspect()).toMatchObject({
      name: 'refactor',
      file: '/work/sessions/refactor.jsonl',
      state: { sessionName: 'refactor', sessionFile: '/work/sessions/refactor.jsonl', ticket: 'PI-7' },
      entries: ['session_info', 'message', 'message', 'custom:plan', 'thinking_level_change'],
      branch: ['session_info', 'message', 'message', 'custom', 'thinking_level_change'],
    })
    // The seeded transcript is what the model sees first.
    await t.run(when('and now?', [says('now this')]))
    expect(t.events.modelRequests[0]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(t).toHaveSentToModel('earlier answer')
  })

  it('seeds each entry type by its own fields, as Pi stores them', async () => {
    t = await createTestSession({
      mocks: {
        session: {
          entries: [
            { type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'earlier' }], timestamp: 1 } },
            { type: 'custom', customType: 'plan', data: { step: 1 } },
            { type: 'session_info', name: 'refactor' },
            { type: 'model_change', provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
            { type: 'thinking_level_change', thinkingLevel: 'high' },
          ],
        },
      },
    })
    const seeded = t.session.sessionManager.getEntries().slice(1, 6)
    expect(seeded).toMatchObject([
      { type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'earlier' }] } },
      { type: 'custom', customType: 'plan', data: { step: 1 } },
      { type: 'session_info', name: 'refactor' },
      { type: 'model_change', provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
      { type: 'thinking_level_change', thinkingLevel: 'high' },
    ])
    expect(t.session.sessionManager.getSessionName()).toBe('refactor')
  })

  it("labels a seeded entry by the spec's id for it, and names a targetId that matches none", async () => {
    const label = { type: 'label', targetId: 'first', label: 'start' } as const
    t = await createTestSession({
      mocks: { session: { entries: [{ type: 'custom', customType: 'plan', id: 'first' }, label], branch: [label] } },
    })
    const [plan, labelled, onBranch] = t.session.sessionManager.getEntries().slice(1, 4)
    expect(plan).toMatchObject({ type: 'custom', customType: 'plan' })
    expect(plan!.id).not.toBe('first')
    expect([labelled, onBranch]).toMatchObject([{ type: 'label', targetId: plan!.id, label: 'start' }, { type: 'label', targetId: plan!.id }])
    expect(t.session.sessionManager.getLabel(plan!.id)).toBe('start')
    await t.dispose()
    t = undefined
    await expect(createTestSession({ mocks: { session: { entries: [{ type: 'custom', customType: 'plan', id: 'a' }, { ...label, targetId: 'b' }] } } })).rejects.toThrow(
      `mock spec session.entries[1]: a label's targetId "b" names no entry seeded before it (the ids seeded before it: "a")`,
    )
  })

  it('seeds a branch of its own: getBranch() follows it, getEntries() has everything', async () => {
    t = await createTestSession({
      extensions: [INSPECTOR],
      mocks: {
        session: {
          entries: [{ type: 'custom', customType: 'main' }],
          branch: [{ type: 'custom', customType: 'alt' }],
        },
      },
    })
    const seen = await inspect()
    expect(seen).toMatchObject({ name: 'test-session', file: '/tmp/test-session.jsonl' })
    // Entries Pi adds itself at start (model and thinking level) follow the seeded ones.
    expect(seen.entries.slice(0, 3)).toEqual(['session_info', 'custom:main', 'custom:alt'])
    expect(seen.branch[0]).toBe('custom')
    expect(seen.branch).toHaveLength(seen.entries.length - 2)
  })

  it('refuses session mutations when accept_mutations is false', async () => {
    t = await createTestSession({ extensions: [INSPECTOR], mocks: { session: { accept_mutations: false } }, propagateErrors: false })
    await t.command('mutate', 'name')
    await t.command('mutate', 'entry')
    expect(t.events.extensionErrors.map((e) => e.error)).toEqual([
      'pi.setSessionName() is refused by the mock spec (session.accept_mutations: false)',
      'pi.appendEntry() is refused by the mock spec (session.accept_mutations: false)',
    ])
  })

  it('answers getActiveTools/getAllTools and tool calls from the tools block', async () => {
    t = await createTestSession({
      extensions: [INSPECTOR],
      mocks: {
        tools: {
          active_tools: ['read', 'search'],
          all_tools: [{ name: 'read' }, { name: 'search', description: 'finds things' }],
          invocations: [
            { name: 'read', input_match: { path: 'a.md' }, result: { content: [{ type: 'text', text: '# A' }] }, times: 1 },
            { name: 'read', input_match: { path: 'b.md' }, error: 'EACCES: b.md' },
          ],
        },
      },
      propagateErrors: false,
    })
    expect(await inspect()).toMatchObject({ activeTools: ['read', 'search'], allTools: ['read', 'search'] })
    await t.run(when('read', [calls('read', { path: 'a.md', limit: 5 }), calls('read', { path: 'b.md' }), says('ok')]))
    expect(t.events.toolResults.map((r) => [r.text, r.isError])).toEqual([
      ['# A', false],
      ['EACCES: b.md', true],
    ])
    await expect(t.run(when('again', [calls('read', { path: 'a.md' }), says('?')]))).rejects.toThrow(
      'Unhandled tool call read({"path":"a.md"}): no tools.invocations rule answered. Tried:\n' +
        '  tools.invocations[0] matched but its times (1) ran out\n' +
        '  tools.invocations[1] did not match: the input does not contain {"path":"b.md"}',
    )
  })

  it('answers dialogs from the ui block, and explicit mockUI wins', async () => {
    const dialogs = (pi: import('@mariozechner/pi-coding-agent').ExtensionAPI) =>
      pi.registerCommand('ask', {
        handler: async (_a, ctx) =>
          ctx.ui.notify(JSON.stringify([await ctx.ui.confirm('ok?', ''), await ctx.ui.input('name?'), await ctx.ui.select('pick', ['a', 'b'])])),
      })
    t = await createTestSession({ extensions: [dialogs], mocks: { ui: { responses: { select: 'b' }, dialog_default: 'Ada' } } })
    await t.command('ask')
    expect(t).toHaveNotified('[true,"Ada","b"]')
    expect(t.events.ui.slice(0, 3)).toEqual([
      { method: 'confirm', args: ['ok?', ''], returnValue: true, defaulted: true },
      { method: 'input', args: ['name?', undefined], returnValue: 'Ada', defaulted: true },
      { method: 'select', args: ['pick', ['a', 'b']], returnValue: 'b' },
    ])
    await t.dispose()
    t = await createTestSession({ extensions: [dialogs], mocks: { ui: { responses: { select: 'b' }, capture: false } }, mockUI: { confirm: false } })
    await t.command('ask')
    expect(t.events.ui).toEqual([])
  })

  it('says when a ui block default answered a dialog, in the record and in toHavePrompted failures', async () => {
    const gate = (pi: import('@mariozechner/pi-coding-agent').ExtensionAPI) =>
      pi.registerCommand('deploy', {
        handler: async (_a, ctx) => {
          if (await ctx.ui.confirm('Run?', 'rm -rf build')) ctx.ui.notify(`as ${JSON.stringify(await ctx.ui.input('Name?'))}`)
        },
      })
    // An empty ui block still answers: confirm_default is true and dialog_default "" unless set.
    t = await createTestSession({ extensions: [gate], mocks: { ui: {} } })
    await t.command('deploy')
    expect(t).toHaveNotified('as ""')
    expect(t.events.uiCallsFor('confirm')).toEqual([{ method: 'confirm', args: ['Run?', 'rm -rf build'], returnValue: true, defaulted: true }])
    let failure = 'the assertion passed'
    try {
      expect(t).toHavePrompted('select')
    } catch (error) {
      failure = stripVTControlCharacters((error as Error).message)
    }
    expect(failure).toBe(
      [
        'expect(session).toHavePrompted(method)',
        '',
        'Expected a select dialog.',
        '',
        'Calls made:',
        '  1. confirm("Run?", "rm -rf build") → true (mocks.ui default)',
        '  2. input("Name?", undefined) → "" (mocks.ui default)',
        '',
        'Session timeline:',
        '  turn 1: "/deploy"',
        '›   confirm("Run?", "rm -rf build") → true (mocks.ui default)',
        '›   input("Name?", undefined) → "" (mocks.ui default)',
        '    notify("as """, "info")',
      ].join('\n'),
    )
    await t.dispose()
    // A scripted answer, from mockUI or the ui block's responses, is not a default.
    t = await createTestSession({ extensions: [gate], mocks: { ui: { responses: { input: 'Ada' } } }, mockUI: { confirm: true } })
    await t.command('deploy')
    expect(t.events.ui.filter((c) => 'defaulted' in c)).toEqual([])
  })

  it('fires events in order and compares expected responses', async () => {
    t = await createTestSession({
      extensions: [INSPECTOR],
      mocks: {
        events: {
          fire_sequence: [
            { event: 'input', payload: { text: 'secret' }, expected_response: { action: 'handled' } },
            { event: 'tool_call', payload: { toolName: 'bash', toolCallId: 'c1', input: { command: 'ls' } }, expected_response: { block: true, reason: 'no bash' } },
          ],
        },
      },
    })
    expect(t.firedEvents.map((f) => f.result)).toEqual([{ action: 'handled' }, { block: true, reason: 'no bash' }])
    await t.dispose()
    await expect(
      createTestSession({
        extensions: [INSPECTOR],
        mocks: { events: { fire_sequence: [{ event: 'input', payload: { text: 'hello' }, expected_response: { action: 'handled' } }] } },
      }),
    ).rejects.toThrow(
      [
        'events.fire_sequence[0] (input): the handlers returned a different result than expected_response',
        'Expected values to be strictly deep-equal:',
        '+ actual - expected',
        '',
        '  {',
        "+   action: 'continue'",
        "-   action: 'handled'",
        '  }',
      ].join('\n'),
    )
  })

  it('reports the model block through ctx.model, the thinking level and the registry', async () => {
    t = await createTestSession({
      extensions: [INSPECTOR],
      mocks: {
        model: {
          current: { provider: 'anthropic', model_id: 'claude-x', name: 'Claude X' },
          thinking_level: 'high',
          available_models: [
            { provider: 'anthropic', id: 'claude-x', name: 'Claude X', reasoning: true },
            { provider: 'openai', id: 'gpt-y', name: 'GPT Y' },
          ],
          accept_mutations: false,
        },
      },
      propagateErrors: false,
    })
    expect(await inspect()).toMatchObject({ model: 'anthropic/claude-x', thinking: 'high', available: ['claude-x', 'gpt-y'] })
    await t.command('mutate', 'thinking')
    expect(t.events.extensionErrors.map((e) => e.error)).toEqual(['pi.setThinkingLevel() is refused by the mock spec (model.accept_mutations: false)'])
    await t.run(when('hi', [says('hello')]))
    expect(t.events.messages.at(-1)).toMatchObject({ provider: 'anthropic', model: 'claude-x' })
  })

  it('checks extension_id against the extension under test', async () => {
    await expect(
      createTestSession({ extensions: [INSPECTOR], mockSpec: { schema: 'pi.ext.mock_spec.v1', extension_id: 'permission-gate' } }),
    ).rejects.toThrow('mock spec: /extension_id: "permission-gate" does not match the extension under test (inspector)')
  })
})
