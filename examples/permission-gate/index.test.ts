import { describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

const gate = { extensions: ['./permission-gate/index.ts'], mockTools: { bash: (p: Record<string, unknown>) => `ran ${p.command}` } }

describe('permission gate', () => {
  it('blocks rm -rf when the user says no', async () => {
    const t = await createTestSession({ ...gate, mockUI: { confirm: false } })
    await t.run(when('clean up', [calls('bash', { command: 'rm -rf /' }), says('I could not.')]))
    expect(t).toHaveBlocked('bash', 'Blocked by the user')
    expect(t).toHavePrompted('confirm', 'Run a dangerous command?')
  })

  it('runs it when the user says yes, and warns', async () => {
    const t = await createTestSession({ ...gate, mockUI: { confirm: true } })
    await t.run(when('clean up', [calls('bash', { command: 'rm -rf build' }), says('Cleaned.')]))
    expect(t).not.toHaveBlocked('bash')
    expect(t).toHaveToolResult('bash', { text: 'ran rm -rf build' })
    expect(t).toHaveNotified('Allowed: rm -rf build', 'warning')
  })

  it('blocks without asking when there is no UI', async () => {
    const t = await createTestSession({ ...gate, mockUI: false })
    await t.run(when('clean up', [calls('bash', { command: 'sudo rm -rf /' }), says('Blocked.')]))
    expect(t).toHaveBlocked('bash', /^Blocked without a UI/)
    expect(t).not.toHavePrompted('confirm')
  })

  it('never asks about a safe command', async () => {
    const t = await createTestSession({ ...gate, mockUI: { strict: true } })
    await t.run(when('list', [calls('bash', { command: 'ls -la' }), says('Listed.')]))
    expect(t).toHaveCalledTool('bash', { command: 'ls -la' })
    expect(t.events.ui).toEqual([])
  })
})
