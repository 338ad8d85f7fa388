import { expect, it } from 'vitest'
import { createTestSession } from 'vitest-environment-pi'

it('shows the branch and the number of changed files', async () => {
  const t = await createTestSession({ extensions: ['./git-summary/index.ts'], mockSpec: './git-summary/git-summary.mock.json' })
  await t.command('summary')
  expect(t).toHaveExecuted('git', ['rev-parse', '--abbrev-ref', 'HEAD'])
  expect(t).toHaveExecuted('git status --porcelain')
  expect(t).toHaveSetStatus('git', 'feature/login · 2 changed')
})

it('says so outside a git repository', async () => {
  const t = await createTestSession({
    extensions: ['./git-summary/index.ts'],
    mocks: { exec: { rules: [{ match: { cmd_exact: 'git' }, result: { code: 128, stderr: 'fatal: not a git repository' } }] } },
  })
  await t.command('summary')
  expect(t).toHaveNotified('Not a git repository', 'error')
  expect(t).not.toHaveExecuted('git status --porcelain')
})
