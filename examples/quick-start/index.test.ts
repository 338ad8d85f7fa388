import { expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

it('blocks rm -rf', async () => {
  const t = await createTestSession({
    extensions: ['./quick-start/index.ts'],
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
})
