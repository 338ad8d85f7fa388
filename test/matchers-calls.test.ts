// The matchers on calls, replies, requests and registrations, each with what it must accept and refuse:
// counts are exact, order is a subsequence, a command matches with or without its slash, the model's
// words are its replies (not the prompt), and a request counts its system prompt.
import { describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { Type } from 'typebox'
import { calls, createTestSession, parallel, says, when } from '../environment/index.js'

/** A `greet` tool, a `/mode` command, and a line of context sent with every prompt. */
function greeter(pi: ExtensionAPI) {
  pi.registerTool({
    name: 'greet',
    label: 'Greet',
    description: 'Greets someone',
    parameters: Type.Object({ name: Type.String() }),
    execute: async (_id, params) => ({ content: [{ type: 'text', text: `Hello, ${params.name}!` }], details: {} }),
  })
  pi.registerCommand('mode', { handler: async () => {} })
  pi.on('before_agent_start', () => ({ message: { customType: 'greeter', content: 'The greeter is active.', display: false } }))
}

describe('matchers on tool calls', () => {
  it('toHaveCalledTool by name and params; toHaveCalledToolTimes exact; toHaveCalledToolsInOrder a subsequence', async () => {
    const t = await createTestSession({ mockTools: { bash: 'ok', read: 'text' } })
    await t.run(
      when('work', [
        calls('bash', { command: 'ls -la', timeout: 5 }),
        parallel(calls('read', { path: 'a.md' }), calls('bash', { command: 'pwd' })),
        calls('read', { path: 'b.md' }),
        says('done'),
      ]),
    )
    expect(t).toHaveCalledTool('bash')
    expect(t).toHaveCalledTool('bash', { command: 'ls -la' })
    expect(t).toHaveCalledTool('bash', { command: expect.stringContaining('pw') })
    expect(t).not.toHaveCalledTool('bash', { command: 'ls' })
    expect(t).not.toHaveCalledTool('write')

    expect(t).toHaveCalledToolTimes('bash', 2)
    expect(t).toHaveCalledToolTimes('write', 0)
    expect(t).not.toHaveCalledToolTimes('bash', 1)
    expect(t).not.toHaveCalledToolTimes('bash', 3)

    expect(t).toHaveCalledToolsInOrder(['bash', 'read'])
    expect(t).toHaveCalledToolsInOrder(['bash', 'bash', 'read'])
    expect(t).toHaveCalledToolsInOrder(['read', 'read'])
    expect(t).toHaveCalledToolsInOrder([])
    expect(t).not.toHaveCalledToolsInOrder(['read', 'bash', 'bash'])
    expect(t).not.toHaveCalledToolsInOrder(['bash', 'bash', 'bash'])
    expect(t).not.toHaveCalledToolsInOrder(['write'])
  })
})

describe('matchers on what the model said and was sent', () => {
  it("toHaveSaid reads the model's replies; toHaveSentToModel the prompts, context and system prompt it got", async () => {
    const t = await createTestSession({ extensions: [greeter], systemPrompt: 'You are a careful greeter.' })
    await t.run(when('summarise the repo', [says('It is a small project.')]))
    expect(t).toHaveSaid('small project')
    expect(t).toHaveSaid(/^It is/)
    expect(t).not.toHaveSaid('summarise the repo')
    expect(t).not.toHaveSaid(/^small/)
    expect(t).toHaveSentToModel('summarise the repo')
    expect(t).toHaveSentToModel('The greeter is active.')
    expect(t).toHaveSentToModel(/careful greeter/)
    expect(t).not.toHaveSentToModel('It is a small project.')
    expect(t).not.toHaveSentToModel('password')
  })
})

describe('matchers on registrations', () => {
  it('toHaveRegisteredTool: the extension\'s tools and Pi\'s; toHaveRegisteredCommand: with or without the slash', async () => {
    const t = await createTestSession({ extensions: [greeter] })
    expect(t).toHaveRegisteredTool('greet')
    expect(t).toHaveRegisteredTool('bash')
    expect(t).not.toHaveRegisteredTool('deploy')
    expect(t).not.toHaveRegisteredTool('mode')
    expect(t).toHaveRegisteredCommand('mode')
    expect(t).toHaveRegisteredCommand('/mode')
    expect(t).not.toHaveRegisteredCommand('greet')
    expect(t).not.toHaveRegisteredCommand('/plan')
  })
})
