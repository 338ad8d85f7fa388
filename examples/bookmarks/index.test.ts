import { join } from 'node:path'
import { expect, it } from 'vitest'
import { createTestSession, says, when } from 'vitest-environment-pi'

const bookmarks = { extensions: ['./bookmarks/index.ts'] }

it('restores its bookmarks when the session is resumed from its file', async () => {
  const t = await createTestSession(bookmarks)
  await t.run(when('start the release', [says('Started.')]))
  await t.command('bookmark', 'release')
  const file = t.saveSession(join(t.home, 'release.jsonl'))
  await t.newSession()
  await t.command('bookmarks')
  expect(t.events.ofInstance(2)).toHaveNotified('No bookmarks')
  await t.resume(file)
  await t.command('bookmarks')
  expect(t.events.ofInstance(3)).toHaveNotified('release')
})

it('a fork keeps the bookmarks made before the forked message, not those after', async () => {
  const t = await createTestSession(bookmarks)
  await t.run(when('step one', [says('One.')]))
  await t.command('bookmark', 'first')
  await t.run(when('step two', [says('Two.')]))
  await t.command('bookmark', 'second')
  const stepTwo = t.session.sessionManager.getEntries().find((entry) => entry.type === 'message' && entry.message.role === 'user' && JSON.stringify(entry.message.content).includes('step two'))!
  await expect(t.fork(stepTwo.id)).resolves.toMatchObject({ cancelled: false, selectedText: 'step two' })
  await t.command('bookmarks')
  expect(t.events.ofInstance(2)).toHaveNotified('first')
})
