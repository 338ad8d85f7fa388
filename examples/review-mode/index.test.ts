import type { Message } from '@mariozechner/pi-ai'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from 'vitest-environment-pi'

const review = {
  extensions: ['./review-mode/index.ts'],
  mockTools: { read: 'export const answer = 42', bash: (p: Record<string, unknown>) => `ran ${p.command}`, write: 'written' },
}

/** A message's text, as the model reads it. */
const textOf = (m: Message) => (typeof m.content === 'string' ? m.content : m.content.map((c) => ('text' in c ? c.text : '')).join(''))

/** The tools the model was offered in its latest request. */
const lastTools = (t: TestSession) => t.events.modelRequests.at(-1)!.tools

describe('review mode', () => {
  it('leaves the model its tools and its prompt until /review', async () => {
    const t = await createTestSession(review)
    await t.run(when('fix the bug', [says('Fixed.')]))
    expect(lastTools(t)).toEqual(expect.arrayContaining(['bash', 'write', 'edit']))
    expect(t).not.toHaveSentToModel('[REVIEW MODE]')
  })

  it('offers the model only read-only tools', async () => {
    const t = await createTestSession(review)
    await t.command('review')
    await t.run(when('review src/', [says('Looks fine.')]))
    expect(lastTools(t).toSorted()).toEqual(['find', 'grep', 'ls', 'read'])
  })

  it('shows review mode in the status line', async () => {
    const t = await createTestSession(review)
    await t.command('review')
    expect(t).toHaveSetStatus('review', 'review mode: read-only (read, grep, find, ls)')
    expect(t).toHaveNotified('Review mode on', 'info')
  })

  it('tells the model it is reviewing, with every prompt', async () => {
    const t = await createTestSession(review)
    await t.command('review')
    await t.run(when('review src/', [calls('read', { path: 'src/answer.ts' }), says('One finding.')]), when('and tests/?', [says('Fine.')]))
    expect(t).toHaveSentToModel('[REVIEW MODE] You are reviewing this code, not changing it.')
    expect(t).toHaveSentToModel('do not edit, write or run commands')
    // Two prompts, two reminders, each right after its prompt.
    const reminder = expect.stringMatching(/^\[REVIEW MODE\]/)
    const userMessages = t.events.modelRequests.at(-1)!.messages.filter((m) => m.role === 'user').map(textOf)
    expect(userMessages).toEqual(['review src/', reminder, 'and tests/?', reminder])
  })

  it('answers a write with "not found": the tool is not active, so nothing blocks it', async () => {
    const t = await createTestSession(review)
    await t.command('review')
    await t.run(when('fix it while you are there', [calls('write', { path: 'src/answer.ts', content: 'x' }), says('I cannot write in review mode.')]))
    expect(t).toHaveToolResult('write', { isError: true, text: 'Tool write not found' })
    expect(t.events.toolCallsFor('write')).toMatchObject([{ input: { path: 'src/answer.ts' }, blocked: false }])
    expect(t).not.toHaveBlocked('write')
    expect(t).not.toHaveToolResult('write', { text: 'written' })
  })

  it('blocks bash with a reason, even when another extension turns it back on', async () => {
    const enableBash = (pi: ExtensionAPI) =>
      pi.registerCommand('enable-bash', { handler: async () => pi.setActiveTools([...pi.getActiveTools(), 'bash']) })
    const t = await createTestSession({ ...review, extensions: [...review.extensions, enableBash] })
    await t.command('review')
    await t.command('enable-bash')
    await t.run(when('run the tests', [calls('bash', { command: 'npm test' }), says('Not in review mode.')]))
    expect(t).toHaveBlocked('bash', 'Review mode is on: bash is not allowed')
    expect(t).not.toHaveToolResult('bash', { text: 'ran npm test' })
  })

  it('restores the previous tools, clears the status and stops the reminder on a second /review', async () => {
    // Started with a tool set of its own, the session gets exactly that set back.
    const t = await createTestSession({ ...review, tools: ['read', 'bash', 'write'] })
    await t.command('review')
    await t.command('review')
    await t.run(when('now fix it', [calls('bash', { command: 'npm test' }), says('Tests pass.')]))
    expect(lastTools(t).toSorted()).toEqual(['bash', 'read', 'write'])
    expect(t).toHaveSetStatus('review', undefined)
    expect(t).toHaveNotified('Review mode off: tools restored', 'info')
    expect(t).not.toHaveSentToModel('[REVIEW MODE]')
    expect(t).toHaveToolResult('bash', { text: 'ran npm test', isError: false })
  })
})
