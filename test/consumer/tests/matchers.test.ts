import { describe, expect, it } from 'vitest'
import { calls, createTestSession, parallel, says, when } from 'vitest-environment-pi'

describe('matchers', () => {
  it('tool calls, order and counts', async () => {
    const t = await createTestSession({ mockTools: { bash: (p) => `ran ${p.command}`, read: 'contents' } })
    await t.run(
      when('work', [
        calls('bash', { command: 'ls -la', timeout: 5 }),
        parallel(calls('read', { path: 'a.md' }), calls('bash', { command: 'pwd' })),
        says('done'),
      ]),
    )
    expect(t).toHaveCalledTool('bash')
    expect(t).toHaveCalledTool('bash', { command: 'ls -la' })
    expect(t).toHaveCalledTool('bash', { command: expect.stringContaining('pw') })
    expect(t).not.toHaveCalledTool('write')
    expect(t).not.toHaveCalledTool('bash', { command: 'rm -rf /' })
    expect(t).toHaveCalledToolTimes('bash', 2)
    expect(t).not.toHaveCalledToolTimes('read', 2)
    expect(t).toHaveCalledToolsInOrder(['bash', 'bash'])
    expect(t).toHaveCalledToolsInOrder(['read', 'bash'])
    expect(t).not.toHaveCalledToolsInOrder(['bash', 'bash', 'read'])
    expect(t.events).toHaveCalledTool('read', { path: 'a.md' })
    expect({ session: t }).toEqual({ session: expect.toHaveCalledTool('bash', { command: 'pwd' }) })
    expect({ session: t }).toEqual({ session: expect.not.toHaveCalledTool('edit') })
  })

  it('blocks and tool results', async () => {
    const t = await createTestSession({ mockTools: { bash: 'ok' }, propagateErrors: false })
    await t.run(
      when('clean', [
        calls('bash', { command: 'rm -rf /' }),
        calls('bash', { command: 'ls' }),
        calls('greet', { name: 'Ada' }),
        calls('read', { path: '/etc/passwd' }),
        says('done'),
      ]),
    )
    expect(t).toHaveBlocked('bash')
    expect(t).toHaveBlocked('bash', 'rm -rf')
    expect(t).toHaveBlocked('bash', /not allowed$/)
    expect(t).toHaveBlocked('read', 'system path')
    expect(t).not.toHaveBlocked('greet')
    expect(t).not.toHaveBlocked('bash', 'sudo')
    expect(t).toHaveToolResult('greet', { text: 'Hello, Ada!', isError: false, details: { name: 'Ada' } })
    expect(t).toHaveToolResult('greet', { text: /Ada/ })
    expect(t).toHaveToolResult('bash', { text: 'rm -rf is not allowed', isError: true })
    expect(t).not.toHaveToolResult('greet', { isError: true })
  })

  it('ui: notifications, dialogs and status', async () => {
    const t = await createTestSession({ mockUI: { confirm: true, select: 'relaxed' }, mockTools: { bash: 'ok' } })
    await t.command('mode')
    await t.command('mode', 'strict')
    await t.run(when('go', [calls('greet', { name: 'Bo' }), calls('bash', { command: 'rm -rf x' }), says('ok')]))
    expect(t).toHaveNotified('greeted Bo')
    expect(t).toHaveNotified(/blocked/, 'warning')
    expect(t).not.toHaveNotified('greeted Bo', 'error')
    expect(t).toHavePrompted('confirm', 'Greet?')
    expect(t).toHavePrompted('select', /Mode/)
    expect(t).not.toHavePrompted('input')
    expect(t).toHaveSetStatus('guard')
    expect(t).toHaveSetStatus('guard', 'mode: relaxed')
    expect(t).toHaveSetStatus('guard', /strict/)
    expect(t).not.toHaveSetStatus('guard', 'mode: off')
  })

  it('what the model said and was sent', async () => {
    const t = await createTestSession()
    await t.run(when('summarise the repo', [says('It is a small project.')]))
    expect(t).toHaveSaid('small project')
    expect(t).toHaveSaid(/^It is/)
    expect(t).not.toHaveSaid('large')
    expect(t).toHaveSentToModel('summarise the repo')
    expect(t).toHaveSentToModel('The guard extension is active.')
    expect(t).not.toHaveSentToModel('password')
  })

  it('registrations', async () => {
    const t = await createTestSession()
    expect(t).toHaveRegisteredTool('greet')
    expect(t).toHaveRegisteredTool('bash')
    expect(t).not.toHaveRegisteredTool('deploy')
    expect(t).toHaveRegisteredCommand('mode')
    expect(t).toHaveRegisteredCommand('/mode')
    expect(t).not.toHaveRegisteredCommand('plan')
  })
})
