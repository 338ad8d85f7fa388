import { expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

const items = [
  { text: 'tests pass', done: true },
  { text: 'changelog written', done: true },
  { text: 'version bumped', done: false },
]

it('draws the checklist as a count, and each item when expanded', async () => {
  const t = await createTestSession({ extensions: ['./checklist/index.ts'] })
  await t.run(when('is the release ready?', [calls('checklist', { title: 'Release 1.2', items }), says('Not yet: bump the version.')]))

  expect(t).toHaveRendered('checklist Release 1.2', { tool: 'checklist' })
  expect(t).toHaveRendered('2/3 done', { tool: 'checklist', expanded: false })
  expect(t).not.toHaveRendered('✗ version bumped', { tool: 'checklist', expanded: false })
  expect(t).toHaveRendered('✗ version bumped', { tool: 'checklist', expanded: true })
})
