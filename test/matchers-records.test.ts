// Dialog options and answers, blocks picked by params, exec args in order, any notify level, widgets and
// appended entries: recorded, and asserted with matchers (and their .not and asymmetric forms).
import { afterEach, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { Text } from '@mariozechner/pi-tui'
import { calls, createTestSession, says, when, type TestSession } from '../src/index.js'

let t: TestSession | undefined
afterEach(async () => {
  await t?.dispose()
  t = undefined
})

/** Registers `/go`, which runs `body` with the command context. */
const command = (body: (pi: ExtensionAPI, ctx: Parameters<Parameters<ExtensionAPI['registerCommand']>[1]['handler']>[1]) => Promise<void> | void) => (pi: ExtensionAPI) =>
  pi.registerCommand('go', { handler: async (_args, ctx) => body(pi, ctx) })

describe('dialogs', () => {
  it('records the options a dialog was opened with (a signal as signal: true) and what it answered', async () => {
    const controller = new AbortController()
    t = await createTestSession({
      extensions: [
        command(async (_pi, ctx) => {
          await ctx.ui.select('Pick', ['a', 'b'], { timeout: 10000, signal: controller.signal })
          await ctx.ui.confirm('Sure?', 'really')
        }),
      ],
      mockUI: { select: 'b', confirm: true },
    })
    await t.command('go')

    expect(t.events.uiCallsFor('select')).toEqual([{ method: 'select', args: ['Pick', ['a', 'b']], options: { timeout: 10000, signal: true }, returnValue: 'b' }])
    expect(t.events.uiCallsFor('confirm')[0]).not.toHaveProperty('options')
    expect(t).toHavePrompted('select', 'Pick', { options: { timeout: 10000, signal: true } })
    expect(t).toHavePrompted('select', 'Pick', { answer: 'b', options: { timeout: expect.any(Number) } })
    expect(t).not.toHavePrompted('select', 'Pick', { answer: 'a' })
    expect(t).not.toHavePrompted('select', 'Pick', { options: { timeout: 5000 } })
    expect(t).toHavePrompted('confirm', 'Sure?', { answer: true })
    expect(t).not.toHavePrompted('confirm', undefined, { options: { signal: true } })
    expect(t).toEqual(expect.toHavePrompted('select', /Pi/, { answer: expect.stringMatching(/^b$/) }))
  })
})

describe('toHaveBlocked(name, params?, reason?)', () => {
  const gate = (pi: ExtensionAPI) => {
    pi.on('tool_call', (event) => (String((event.input as { command?: unknown }).command).includes('clean') ? { block: true, reason: 'no cleaning' } : undefined))
  }

  it('picks calls by params, like toHaveCalledTool', async () => {
    t = await createTestSession({ extensions: [gate], mockTools: { bash: 'ok' } })
    await t.run(when('tidy', [calls('bash', { command: 'git clean -n' }), calls('bash', { command: 'git status' }), says('done')]))

    expect(t).toHaveBlocked('bash', { command: 'git clean -n' })
    expect(t).toHaveBlocked('bash', { command: expect.stringContaining('clean') }, /cleaning/)
    expect(t).toHaveBlocked('bash', 'no cleaning')
    expect(t).not.toHaveBlocked('bash', { command: 'git status' })
    expect(t).not.toHaveBlocked('bash', { command: 'git clean -n' }, 'other reason')
    expect(t).not.toHaveBlocked('bash', { command: 'rm -rf /' })
  })
})

describe('toHaveExecuted(command, args)', () => {
  const committer = command(async (pi) => {
    await pi.exec('git', ['commit', '-m', 'x'])
  })

  it('args appear in order, others may come between; .not stays meaningful', async () => {
    t = await createTestSession({ extensions: [committer], mocks: { exec: { default_result: { stdout: '' } } } })
    await t.command('go')

    expect(t).toHaveExecuted('git', ['commit'])
    expect(t).toHaveExecuted('git', ['commit', 'x'])
    expect(t).toHaveExecuted('git', ['commit', '-m', expect.any(String)])
    expect(t).not.toHaveExecuted('git', ['x', 'commit'])
    expect(t).not.toHaveExecuted('git', ['push'])
    expect(t).toHaveExecuted('git', expect.arrayContaining(['-m']))
    expect(() => expect(t).not.toHaveExecuted('git', ['commit'])).toThrow(/Expected no pi\.exec of .*git.* with args .*commit.*in this order/)
  })
})

describe('notify levels', () => {
  it('accepts any level the extension passed', async () => {
    t = await createTestSession({ extensions: [command((_pi, ctx) => ctx.ui.notify('Saved', 'success' as never))] })
    await t.command('go')
    expect(t).toHaveNotified('Saved', 'success')
    expect(t).not.toHaveNotified('Saved', 'info')
  })
})

describe('status', () => {
  it('toHaveSetStatus(key) matches any text, (key, text) that text, (key, undefined) only a cleared status', async () => {
    t = await createTestSession({
      extensions: [
        (pi) => {
          pi.registerCommand('strict', { handler: async (_args, ctx) => ctx.ui.setStatus('guard', 'mode: strict') })
          pi.registerCommand('off', { handler: async (_args, ctx) => ctx.ui.setStatus('guard', undefined) })
        },
      ],
    })
    await t.command('strict')
    expect(t).toHaveSetStatus('guard')
    expect(t).toHaveSetStatus('guard', 'mode: strict')
    expect(t).toHaveSetStatus('guard', /strict$/)
    expect(t).not.toHaveSetStatus('guard', 'mode: off')
    expect(t).not.toHaveSetStatus('guard', undefined)
    expect(t).not.toHaveSetStatus('mode')
    expect(t).not.toHaveSetStatus('mode', 'mode: strict')

    await t.command('off')
    expect(t).toHaveSetStatus('guard', undefined)
  })
})

describe('widgets', () => {
  it('records lines, clears and component factories (rendered once with Pi\'s TUI)', async () => {
    t = await createTestSession({
      extensions: [
        command((_pi, ctx) => {
          ctx.ui.setWidget('todos', ['1. milk', '2. tests'], { placement: 'belowEditor' })
          ctx.ui.setWidget('todos', undefined)
          ctx.ui.setWidget('clock', (_tui, theme) => new Text(theme.fg('accent', '12:00'), 0, 0))
        }),
      ],
    })
    await t.command('go')

    expect(t.events.widgets).toEqual([
      { key: 'todos', lines: ['1. milk', '2. tests'], options: { placement: 'belowEditor' } },
      { key: 'todos', lines: undefined },
      { key: 'clock', lines: ['12:00'], component: true },
    ])
    expect(t).toHaveSetWidget('todos')
    expect(t).toHaveSetWidget('todos', ['1. milk', '2. tests'])
    expect(t).toHaveSetWidget('todos', 'milk')
    expect(t).toHaveSetWidget('todos', undefined)
    expect(t).toHaveSetWidget('clock', /^12:00$/)
    expect(t).not.toHaveSetWidget('todos', ['1. milk'])
    expect(t).not.toHaveSetWidget('status')
  })
})

describe('appended entries', () => {
  it('records pi.appendEntry, and the matcher picks by type and data', async () => {
    t = await createTestSession({ extensions: [command((pi) => pi.appendEntry('plan', { step: 2, todo: ['a'] }))] })
    await t.command('go')

    expect(t.events.entries).toEqual([{ customType: 'plan', data: { step: 2, todo: ['a'] } }])
    expect(t).toHaveAppendedEntry('plan')
    expect(t).toHaveAppendedEntry('plan', { step: 2 })
    expect(t).not.toHaveAppendedEntry('plan', { step: 3 })
    expect(t).not.toHaveAppendedEntry('other')
  })

  it('an entry the mock spec refuses is not recorded', async () => {
    t = await createTestSession({
      extensions: [command((pi) => pi.appendEntry('plan', {}))],
      mocks: { session: { accept_mutations: false } },
    })
    await expect(t.command('go')).rejects.toThrow('pi.appendEntry() is refused by the mock spec')
    expect(t.events.entries).toEqual([])
  })
})
