// vi.useFakeTimers() with a session: the harness's own waits and Pi's internals keep real timers, and the
// extension's timers (a 2-minute backoff) are driven from the test with vi.advanceTimersByTime().
import { afterEach, expect, it, vi } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { complete } from '@mariozechner/pi-ai'
import { createTestSession, forExtension, says, waitsFor, when } from '../environment/index.js'

afterEach(() => {
  vi.useRealTimers()
})

/** /backoff waits two minutes, then asks for another turn, as a rate-limited goal mode does. */
const backoff = (pi: ExtensionAPI) => {
  pi.registerCommand('backoff', {
    handler: async (_args, ctx) => {
      ctx.ui.notify('backing off for 2 minutes', 'info')
      setTimeout(() => pi.sendUserMessage('Try again.'), 120_000)
    },
  })
}

it('a session runs under fake timers, and advancing them starts the turn the extension set a timer for', async () => {
  vi.useFakeTimers()
  const t = await createTestSession({ extensions: [backoff] })
  await t.command('backoff')
  expect(t).toHaveNotified('backing off for 2 minutes')
  const retried = t.next(when('Try again.', [says('Done this time.')]))
  vi.advanceTimersByTime(119_999)
  expect(t.events.modelRequests).toHaveLength(0)
  vi.advanceTimersByTime(1)
  await retried
  expect(t.events.lastAssistantText()).toBe('Done this time.')
})

it('a run, a dialog and dispose() go on under fake timers', async () => {
  vi.useFakeTimers()
  const t = await createTestSession({
    extensions: [(pi: ExtensionAPI) => pi.registerCommand('ask', { handler: async (_args, ctx) => ctx.ui.notify(String(await ctx.ui.confirm('Sure?', ''))) })],
    mockUI: { confirm: true },
  })
  await t.run(when('hi', [says('hello')]))
  await t.command('ask')
  expect(t).toHaveNotified('true')
  await t.dispose()
})

/** A promise and the function that resolves it. */
function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((done) => (resolve = done))
  return { promise, resolve }
}

it('a step can wait for virtual time: the model answers once the test has advanced the clock', async () => {
  vi.useFakeTimers()
  const t = await createTestSession()
  const asked = deferred()
  const run = t.run(
    when('think hard', [
      waitsFor(() => {
        asked.resolve()
        return new Promise((resolve) => setTimeout(resolve, 60_000))
      }),
      says('Took a minute.'),
    ]),
  )
  await asked.promise
  vi.advanceTimersByTime(60_000)
  await run
  expect(t.events.lastAssistantText()).toBe('Took a minute.')
})

it('Esc while the model is still answering: a step held until the test releases it ends aborted', async () => {
  const t = await createTestSession()
  const asked = deferred()
  const never = deferred()
  const run = t.run(
    when('slow', [
      waitsFor(() => {
        asked.resolve()
        return never.promise
      }),
      says('Too late.'),
    ]),
  )
  await asked.promise
  t.abort()
  await run
  const last = t.session.messages.at(-1)
  expect(last?.role === 'assistant' && last.stopReason).toBe('aborted')
  expect(t.events.lastAssistantText()).not.toBe('Too late.')
})

it('a side model slower than the extension\'s timeout: forExtension(waitsFor(...)) under fake timers', async () => {
  vi.useFakeTimers()
  const reviewer = (pi: ExtensionAPI) =>
    pi.registerCommand('review', {
      handler: async (_args, ctx) => {
        const vote = complete(ctx.model!, { messages: [{ role: 'user', content: 'Approve?', timestamp: 0 }] }).then((message) =>
          message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
        )
        const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('abstained'), 5_000))
        ctx.ui.notify(`vote: ${await Promise.race([vote, timeout])}`)
      },
    })
  const t = await createTestSession({ extensions: [reviewer] })
  const asked = deferred()
  const review = t.command('review', undefined, [
    forExtension(
      waitsFor(() => {
        asked.resolve()
        return new Promise((resolve) => setTimeout(resolve, 10_000))
      }),
      says('approve'),
    ),
  ])
  await asked.promise
  await vi.advanceTimersByTimeAsync(5_000)
  await vi.advanceTimersByTimeAsync(5_000)
  await review
  expect(t).toHaveNotified('vote: abstained')
})
