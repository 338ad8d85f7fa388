import { describe, expect } from 'vitest'
import { calls, says, test, when } from 'vitest-environment-pi'

describe('the session fixture', () => {
  test('gives a session built with the file defaults', async ({ session }) => {
    await session.run(when('hi', [calls('greet', { name: 'Cy' }), says('bye')]))
    expect(session).toHaveToolResult('greet', { text: 'Hello, Cy!' })
  })

  describe('with scoped options', () => {
    test.override({ sessionOptions: { mockUI: { confirm: false }, propagateErrors: false } })
    test('uses them', async ({ session }) => {
      await session.run(when('hi', [calls('greet', { name: 'Cy' }), says('refused')]))
      expect(session).toHaveToolResult('greet', { text: 'not allowed to greet Cy', isError: true })
    })
  })
})
