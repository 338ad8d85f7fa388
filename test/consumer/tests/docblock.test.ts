/**
 * @vitest-environment-options {"mockUI": {"confirm": false}, "propagateErrors": false}
 */
import { expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

it('merges the docblock options over the config defaults', async () => {
  // The config's extensions still apply; the docblock's confirm: false wins over the config's true.
  const t = await createTestSession()
  await t.run(when('greet', [calls('greet', { name: 'Di' }), says('no')]))
  expect(t).toHaveToolResult('greet', { text: 'not allowed to greet Di', isError: true })
})
