// Bookmarks across Pi's lifecycle at both depths: /new, /resume and /fork go through Pi's own runtime in
// process and over RPC in a `pi` process, with the same calls. Entry ids come from t.forkMessages(), which
// both depths have (t.session, Pi's AgentSession, exists in process only).
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createTestSession, says, when } from 'vitest-environment-pi'

const bookmarks = { extensions: ['./bookmarks/index.ts'] }
// A bound for starting a `pi` process on a loaded machine, not a speed check.
const SLOW = 120_000

describe.each([
  { depth: 'in process', process: false },
  { depth: 'in a pi process', process: true },
])('bookmarks $depth', ({ process }) => {
  it('restores its bookmarks when the session is resumed from its file', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...bookmarks, process })
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

  it('a fork keeps the bookmarks made before the forked message, not those after', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...bookmarks, process })
    await t.run(when('step one', [says('One.')]))
    await t.command('bookmark', 'first')
    await t.run(when('step two', [says('Two.')]))
    await t.command('bookmark', 'second')
    const stepTwo = (await t.forkMessages()).find((message) => message.text === 'step two')!
    if (!process) {
      // In process, the id is the entry's in Pi's own session manager.
      const entry = t.session.sessionManager.getEntries().find((e) => e.type === 'message' && e.message.role === 'user' && JSON.stringify(e.message.content).includes('step two'))
      expect(stepTwo.entryId).toBe(entry?.id)
    }
    await expect(t.fork(stepTwo.entryId)).resolves.toMatchObject({ cancelled: false, selectedText: 'step two' })
    await t.command('bookmarks')
    expect(t.events.ofInstance(2)).toHaveNotified('first')
    expect(t.events.ofInstance(2)).not.toHaveNotified('first, second')
  })
})
