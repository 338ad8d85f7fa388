import { afterEach, describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from '../src/index.js'

const GUARD = 'test/fixtures/extensions/guard.ts'

describe('createTestSession', () => {
  let t: TestSession | undefined
  afterEach(async () => {
    await t?.dispose()
  })

  it('runs a real Pi session whose model is the playbook and records a block from the hook', async () => {
    t = await createTestSession({ extensions: [GUARD], mockTools: { bash: (p) => `ran ${p.command}` }, mockUI: { confirm: true } })
    await t.run(
      when('clean up', [calls('greet', { name: 'x' }), calls('bash', { command: 'rm -rf /' }), calls('bash', { command: 'ls' }), says('done')]),
    )
    expect(t.events.blockedCalls()).toMatchObject([{ toolName: 'bash', blocked: true, blockReason: 'rm -rf is not allowed', step: 2 }])
    expect(t.events.toolResultsFor('bash').map((r) => [r.text, r.isError, r.mocked])).toEqual([
      ['rm -rf is not allowed', true, false],
      ['ran ls', false, true],
    ])
    expect(t.events.toolResultsFor('greet')[0]).toMatchObject({ text: 'Hello, x!', details: { confirmed: true }, mocked: false })
    expect(t.events.lastAssistantText()).toBe('done')
    expect(t.playbook).toEqual({ consumed: 4, remaining: 0 })
  })
})
