// Code of a session that still runs after the session ended (an extension's timer, its model call, its
// dialog) is reported once, naming the session, its test and the extension: to that test while it runs,
// else to the file. Never as Pi's "ctx is stale" alone, never as an unhandled error Vitest blames elsewhere.
import { setTimeout as delay } from 'node:timers/promises'
import { complete } from '@mariozechner/pi-ai'
import type { ExtensionAPI, ExtensionContext } from '@mariozechner/pi-coding-agent'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { says, when } from '../environment/index.js'
import { endSession } from '../environment/sessions.js'
import { createTestSession } from '../src/session/create.js'
import { closeLateWork, nameSession, throwFileLateWork } from '../src/session/late-work.js'

// The extensions' timers start once the test has disposed their session (when it opens the gate).
let openGate: () => void
let gate: Promise<void>
const later = (work: () => unknown) => void gate.then(() => setTimeout(work, 0))

/** Like goal-mode: when the agent ends, a timer starts the next turn. */
function continuesLater(pi: ExtensionAPI) {
  pi.on('agent_end', () => later(() => pi.sendUserMessage('keep going')))
}

/** Its timer asks the model itself. */
function asksLater(pi: ExtensionAPI) {
  pi.on('agent_end', (_event, ctx) => {
    const model = ctx.model!
    later(async () => {
      await complete(model, { messages: [{ role: 'user', content: 'summarize', timestamp: 0 }] }).catch(() => {})
    })
  })
}

/** Its timer opens a dialog through a ui it kept. */
function confirmsLater(pi: ExtensionAPI) {
  let ui: ExtensionContext['ui'] | undefined
  pi.on('session_start', (_event, ctx) => void (ui = ctx.ui))
  pi.on('agent_end', () => later(() => void ui!.confirm('Deploy?', 'now').catch(() => {})))
}

/** Opens the gate and waits until the timers it started have fired. */
async function fireTimers() {
  openGate()
  await delay(20)
}

// An error that escaped to the process would be Vitest's "unhandled error", blamed on whichever test runs.
const escaped: unknown[] = []
const catchEscaped = (error: unknown) => void escaped.push(error)
beforeEach(() => {
  gate = new Promise((resolve) => (openGate = resolve))
  escaped.length = 0
  process.on('uncaughtException', catchEscaped).on('unhandledRejection', catchEscaped)
})
afterEach(() => void process.off('uncaughtException', catchEscaped).off('unhandledRejection', catchEscaped))

async function sessionThatOutlivesItself(extension: (pi: ExtensionAPI) => void, watched: boolean) {
  const t = await createTestSession({ extensions: [extension] })
  nameSession(t, 'session 1 of test "goal mode" (extensions: <inline:1>)', watched)
  await t.run(when('start', [says('started')]))
  await t.dispose()
  await fireTimers()
  return t
}

describe('work of a session after it ended', () => {
  it("a timer that uses pi after the session ended fails the session's test, naming the session, its test and the extension", async () => {
    const t = await sessionThatOutlivesItself(continuesLater, true)
    const failure = await endSession(t).then(() => undefined, (error: Error) => error)
    expect(failure?.message).toBe(
      'A timer of <inline:1> ran after session 1 of test "goal mode" (extensions: <inline:1>) ended, and used its pi or ctx, which Pi refuses after the end. ' +
        'Stop it in a session_shutdown handler, or await it before the test ends.',
    )
    expect(failure?.message).not.toContain('stale')
    expect(escaped).toEqual([])
  })

  it('after its test ended, it fails the file once, with the same name, and nothing escapes', async () => {
    const t = await sessionThatOutlivesItself(continuesLater, true)
    await endSession(t).catch(() => {})
    // Another run of the same extension, ended by its test before its timer fires: the file's to report.
    gate = new Promise((resolve) => (openGate = resolve))
    const u = await createTestSession({ extensions: [continuesLater] })
    nameSession(u, 'session 2 of test "goal mode" (extensions: <inline:1>)', true)
    await u.run(when('start', [says('started')]))
    await endSession(u)
    await fireTimers()
    expect(throwFileLateWork).toThrow(/^A timer of <inline:1> ran after session 2 of test "goal mode" \(extensions: <inline:1>\) ended, and used its pi or ctx/)
    expect(throwFileLateWork).not.toThrow()
    expect(escaped).toEqual([])
  })

  it('a model call after the end names the call, the session and the extension', async () => {
    const t = await sessionThatOutlivesItself(asksLater, false)
    closeLateWork(t)
    expect(throwFileLateWork).toThrow(
      /^A model call to \S+ of <inline:1> ran after session 1 of test "goal mode" \(extensions: <inline:1>\) ended\. Stop it in a session_shutdown handler/,
    )
    expect(escaped).toEqual([])
  })

  it('a dialog after the end is reported, not answered', async () => {
    const t = await sessionThatOutlivesItself(confirmsLater, true)
    await expect(endSession(t)).rejects.toThrow(/^A dialog confirm\("Deploy\?"\) of <inline:1> ran after session 1 of test "goal mode" \(extensions: <inline:1>\) ended\./)
    expect(t.events.ui.filter((call) => call.method === 'confirm')).toEqual([])
  })

  it('the extension that uses a stale ctx gets the same name instead of Pi\'s "ctx is stale" text', async () => {
    let kept: ExtensionAPI | undefined
    const t = await createTestSession({ extensions: [(pi) => void (kept = pi)] })
    nameSession(t, 'session 1 of test "keeps pi" (no extensions)', true)
    await t.dispose()
    expect(() => kept!.sendUserMessage('late')).toThrow(/^session 1 of test "keeps pi" \(no extensions\) has ended: an extension still used its pi or ctx\./)
  })
})
