// The README's quick start test and the session fixture as a user writes them: compiled, never run, with
// either Pi line installed alone. Every @ts-expect-error must meet an error, so none of these types may be `any`.
import { expect, it } from 'vitest'
import { calls, createTestSession, says, test, when } from 'vitest-environment-pi'

it('blocks rm -rf', async () => {
  const t = await createTestSession({
    extensions: ['./extension.ts'],
    mockTools: { bash: (params) => `ran ${params.command}` },
  })
  await t.run(
    when('clean up the repo', [
      calls('bash', { command: 'rm -rf /' }),
      calls('bash', { command: 'git clean -n' }),
      says('Done.'),
    ]),
  )
  expect(t).toHaveBlocked('bash', 'rm -rf is not allowed')
  expect(t).toHaveToolResult('bash', { text: 'ran git clean -n' })
  // @ts-expect-error the tool name is a string
  expect(t).toHaveBlocked(42)
  // @ts-expect-error isError is a boolean
  expect(t).toHaveToolResult('bash', { isError: 'yes' })
})

test('the session fixture', async ({ session }) => {
  await session.run(when('list', [calls('bash', { command: 'ls' }), says('ok')]))
  expect(session).toHaveCalledTool('bash', { command: expect.stringContaining('ls') })
  expect(session.events.toolCalls[0]?.toolName).toBe('bash')
  // @ts-expect-error times is a number
  expect(session).toHaveCalledToolTimes('bash', 'once')
  // @ts-expect-error no such record
  void session.events.toolCallz
})
