import { expect, it } from 'vitest'
import { createTestSession, fails, forExtension, says } from 'vitest-environment-pi'

const staged = { exec: { rules: [{ match: { cmd_exact: 'git diff --staged' }, result: { stdout: '+export function login() {}' } }], default_result: { stdout: '' } } }

it("commits with the message the model wrote for the staged diff", async () => {
  const t = await createTestSession({ extensions: ['./commit-message/index.ts'], mocks: staged })
  // The extension's own model call takes a forExtension(...) answer, never an agent step.
  await t.command('commit', undefined, [forExtension(says('feat: add login'))])
  expect(t).toHaveExecuted('git', ['commit', '-m', 'feat: add login'])
  expect(t.events.modelRequests).toMatchObject([
    { by: 'extension', systemPrompt: 'You write one-line conventional commit messages for a staged diff.', extensionPath: expect.stringMatching(/commit-message/) },
  ])
  expect(t.events.modelRequests[0]!.messages).toMatchObject([{ role: 'user', content: '+export function login() {}' }])
})

it('commits nothing when the model fails', async () => {
  const t = await createTestSession({ extensions: ['./commit-message/index.ts'], mocks: staged })
  await t.command('commit', undefined, [forExtension(fails('529 overloaded'))])
  expect(t).toHaveNotified('No commit: the model failed (529 overloaded)', 'error')
  expect(t).not.toHaveExecuted('git', ['commit', '-m', expect.any(String)])
})

it('asks for a login when the provider has no key', async () => {
  const t = await createTestSession({
    extensions: ['./commit-message/index.ts'],
    mocks: { ...staged, model: { current: { provider: 'anthropic', model_id: 'claude-x' }, without_credentials: ['anthropic'] } },
  })
  await t.command('commit')
  expect(t).toHaveNotified('No API key for anthropic: run /login', 'error')
  expect(t.events.modelRequests).toEqual([])
})
