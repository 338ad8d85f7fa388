// Pi's life around a session, through Pi's own runtime: /new, /resume, /fork, /tree and /reload. The old
// instance gets session_shutdown, the factories run again, session_start says why, and entries come back.
import { join } from 'node:path'
import { complete } from '@mariozechner/pi-ai'
import { describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, when, type TestSession } from '../environment/index.js'

/** The roles of the conversation (1.x adds `system` messages of its own). */
const roles = (t: TestSession) => t.session.messages.map((message) => message.role as string).filter((role) => role !== 'system')

/** Counts the turns in an entry of its own, and restores the count from the session's entries at start. */
function counter(log: string[], options: { cancelSwitch?: boolean; cancelFork?: boolean } = {}) {
  return (pi: ExtensionAPI) => {
    let turns = 0
    log.push('factory')
    pi.on('session_start', (event, ctx) => {
      const saved = ctx.sessionManager.getBranch().filter((entry) => entry.type === 'custom' && entry.customType === 'counter')
      turns = (saved.at(-1) as { data?: { turns: number } } | undefined)?.data?.turns ?? 0
      log.push(`start ${event.reason} turns=${turns}`)
    })
    pi.on('session_shutdown', (event) => void log.push(`shutdown ${event.reason}`))
    pi.on('agent_end', () => pi.appendEntry('counter', { turns: ++turns }))
    if (options.cancelSwitch) pi.on('session_before_switch', (event) => (log.push(`before_switch ${event.reason}`), { cancel: true }))
    if (options.cancelFork) pi.on('session_before_fork', () => ({ cancel: true }))
  }
}

it('/new: the old instance shuts down, the factory runs again, session_start says "new"; script and records carry on', async () => {
  const log: string[] = []
  const t = await createTestSession({ extensions: [counter(log)] })
  await t.run(when('one', [calls('bash', { command: 'ls' }), says('done')]))
  const before = t.session
  await expect(t.newSession()).resolves.toEqual({ cancelled: false })
  expect(t.session).not.toBe(before)
  expect(log).toEqual(['factory', 'start startup turns=0', 'shutdown new', 'factory', 'start new turns=0'])
  await t.run(when('two', [says('fresh')]))
  expect(t.instance).toBe(2)
  expect(t.events.instances()).toEqual([
    { instance: 1, name: 'createTestSession()' },
    { instance: 2, name: 'newSession()' },
  ])
  expect(t.events.ofInstance(1)).toHaveCalledTool('bash')
  expect(t.events.ofInstance(2)).not.toHaveCalledTool('bash')
  expect(t.events.ofInstance(2)).toHaveSaid('fresh')
  expect(t.events.instanceOf(t.events.toolCalls[0]!)).toBe(1)
  expect(t.events.modelRequests.map((request) => request.step)).toEqual([1, 2, 3])
})

it('session_before_switch cancels /new and /resume: the call says so, and nothing is replaced', async () => {
  const log: string[] = []
  const t = await createTestSession({ extensions: [counter(log, { cancelSwitch: true })] })
  const before = t.session
  await expect(t.newSession()).resolves.toEqual({ cancelled: true })
  expect(t.session).toBe(before)
  expect(log).toEqual(['factory', 'start startup turns=0', 'before_switch new'])
  expect(t.instance).toBe(1)
})

it('/resume: the entries appended before come back, and the extension restores its state from them', async () => {
  const log: string[] = []
  const t = await createTestSession({ extensions: [counter(log)] })
  await t.run(when('one', [says('1')]), when('two', [says('2')]))
  const file = t.saveSession(join(t.home, 'saved.jsonl'))
  await t.newSession()
  await expect(t.resume(file)).resolves.toEqual({ cancelled: false })
  expect(log.slice(-3)).toEqual(['shutdown resume', 'factory', 'start resume turns=2'])
  expect(t.session.sessionManager.getEntries().filter((entry) => entry.type === 'custom').map((entry) => (entry as { data: unknown }).data)).toEqual([
    { turns: 1 },
    { turns: 2 },
  ])
  expect(roles(t)).toEqual(['user', 'assistant', 'user', 'assistant'])
})

it('/fork before a user message: the branch up to it, its text back; session_before_fork can cancel', async () => {
  const log: string[] = []
  const t = await createTestSession({ extensions: [counter(log)] })
  await t.run(when('one', [says('1')]), when('two', [says('2')]))
  const second = t.session.sessionManager.getEntries().filter((entry) => entry.type === 'message' && entry.message.role === 'user')[1]!
  await expect(t.fork(second.id)).resolves.toEqual({ cancelled: false, selectedText: 'two' })
  expect(log.slice(-3)).toEqual(['shutdown fork', 'factory', 'start fork turns=1'])
  expect(roles(t)).toEqual(['user', 'assistant'])

  const cancelling = await createTestSession({ extensions: [counter([], { cancelFork: true })] })
  await cancelling.run(when('one', [says('1')]))
  const first = cancelling.session.sessionManager.getEntries().find((entry) => entry.type === 'message')!
  await expect(cancelling.fork(first.id)).resolves.toEqual({ cancelled: true })
})

it("/fork puts the forked user message in the editor, as Pi's interactive mode does; /tree into an empty editor", async () => {
  const t = await createTestSession({ mockUI: { editorText: 'a draft' } })
  await t.run(when('one', [says('1')]), when('two', [says('2')]))
  const [, second] = await t.forkMessages()
  await t.fork(second!.entryId)
  expect(t.editorText).toBe('two')
  // Forking at an entry that is not a user message leaves the editor empty, as in Pi.
  const reply = t.session.sessionManager.getEntries().find((entry) => entry.type === 'message' && entry.message.role === 'assistant')!
  await t.fork(reply.id, 'at')
  expect(t.editorText).toBe('')

  // /tree to a user message fills an empty editor, and leaves one with text in it.
  const other = await createTestSession()
  await other.run(when('one', [says('1')]), when('two', [says('2')]))
  const users = other.session.sessionManager.getEntries().filter((entry) => entry.type === 'message' && entry.message.role === 'user')
  await other.navigate(users[1]!.id)
  expect(other.editorText).toBe('two')
  await other.navigate(users[0]!.id)
  expect(other.editorText).toBe('two')
  await Promise.all([t.dispose(), other.dispose()])
})

it('a cancelled /fork leaves the editor as it was', async () => {
  const t = await createTestSession({ extensions: [counter([], { cancelFork: true })], mockUI: { editorText: 'a draft' } })
  await t.run(when('one', [says('1')]))
  const [first] = await t.forkMessages()
  await t.fork(first!.entryId)
  expect(t.editorText).toBe('a draft')
  await t.dispose()
})

it('/tree moves within the session, and /reload runs the factories again with session_start "reload"', async () => {
  const log: string[] = []
  const t = await createTestSession({ extensions: [counter(log)] })
  await t.run(when('one', [says('1')]), when('two', [says('2')]))
  const second = t.session.sessionManager.getEntries().filter((entry) => entry.type === 'message' && entry.message.role === 'user')[1]!
  await expect(t.navigate(second.id)).resolves.toEqual({ cancelled: false, editorText: 'two' })
  expect(roles(t)).toEqual(['user', 'assistant'])
  expect(t.instance).toBe(1)
  await expect(t.reload()).resolves.toEqual({ cancelled: false })
  expect(log.slice(-3)).toEqual(['shutdown reload', 'factory', 'start reload turns=1'])
  expect(t.instance).toBe(2)
})

it('/reload imports the extension files again, as Pi does: module state starts afresh', async () => {
  const t = await createTestSession({ extensions: ['test/fixtures/extensions/module-state.ts'] })
  await t.reload()
  await t.command('loads')
  await t.reload()
  await t.command('loads')
  expect(t.events.uiCallsFor('notify').map((call) => call.args[0])).toEqual(['factory calls of this module: 1', 'factory calls of this module: 1'])
  await t.dispose()
})

it("a replaced instance's timer that still uses its ctx fails the test, naming the instance", async () => {
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  let finish!: () => void
  const finished = new Promise<void>((resolve) => (finish = resolve))
  const t = await createTestSession({
    extensions: [
      (pi: ExtensionAPI) =>
        pi.registerCommand('later', {
          handler: async (_args, ctx) =>
            void setTimeout(async () => {
              await gate
              try {
                ctx.ui.notify('too late')
              } finally {
                finish()
              }
            }, 0),
        }),
    ],
  })
  await t.command('later')
  await t.newSession()
  release()
  await finished
  await new Promise((resolve) => setImmediate(resolve))
  expect(() => t.verify()).toThrow(/^A timer (of \S+ )?started by instance 1 \(createTestSession\(\)\) of .* ran after newSession\(\) replaced that instance, and threw: /)
  await t.dispose()
})

describe("a replaced instance's model call or dialog, from its timer", () => {
  /** An extension whose /later command starts a timer that waits for the test, then asks the model and the user. */
  function lateAsker(ask: 'model' | 'dialog', done: (outcome: string) => void) {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const extension = (pi: ExtensionAPI) =>
      pi.registerCommand('later', {
        handler: async (_args, ctx) => {
          // Captured while the instance lives: Pi's stale check never sees these.
          const { model, ui } = ctx
          setTimeout(async () => {
            await gate
            try {
              if (ask === 'model') await complete(model!, { messages: [{ role: 'user', content: 'still there?', timestamp: 0 }] })
              else await ui.confirm('Still there?', 'The old instance asks')
              done('answered')
            } catch (error) {
              done(`threw: ${(error as Error).message}`)
            }
          }, 0)
        },
      })
    return { extension, release: () => release() }
  }

  it.each(['model', 'dialog'] as const)('a %s call fails the test naming the instance, and gets no answer of the instance now', async (ask) => {
    let outcome!: (value: string) => void
    const settled = new Promise<string>((resolve) => (outcome = resolve))
    const asker = lateAsker(ask, outcome)
    const t = await createTestSession({ extensions: [asker.extension], mockUI: { confirm: true } })
    await t.command('later')
    await t.newSession()
    asker.release()
    const what = ask === 'model' ? 'A model call to \\S+' : 'A dialog confirm\\("Still there\\?"\\)'
    const named = new RegExp(`^${what} of <inline:1> started by instance 1 \\(createTestSession\\(\\)\\) of .* ran after newSession\\(\\) replaced that instance\\. Pi sends session_shutdown`)
    expect(await settled).toMatch(new RegExp(`^threw: ${what} of <inline:1> started by instance 1`))
    expect(() => t.verify()).toThrow(named)
    await t.dispose().catch(() => {})
  })

  it("the instance's own timers still ask as before", async () => {
    let outcome!: (value: string) => void
    const settled = new Promise<string>((resolve) => (outcome = resolve))
    const asker = lateAsker('dialog', outcome)
    const t = await createTestSession({ extensions: [asker.extension], mockUI: { confirm: true } })
    await t.newSession()
    await t.command('later')
    asker.release()
    expect(await settled).toBe('answered')
    expect(t).toHavePrompted('confirm', 'Still there?')
    await t.dispose()
  })
})
