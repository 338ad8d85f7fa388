// Never a hang: what a stuck test was running is named, and a stuck extension module fails its load in
// bounded time without holding up the sessions after it. test/hangs-in-vitest.test.ts runs tests that time out
// in a Vitest of their own.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when } from '../environment/index.js'
import { createTestSession as createBareSession } from '../src/index.js'
import { describeRunning } from '../src/session/activity.js'

const fixture = (name: string) => `test/fixtures/extensions/${name}`

describe('an extension whose top-level await never settles', () => {
  it('fails to load within the bound, naming the file; a later session loads its extension', async () => {
    // The message names the bound that fired: 300 ms, not the default (no clock read on a shared machine).
    await expect(createTestSession({ extensions: [fixture('never-loads.ts')], extensionLoadTimeout: 300 })).rejects.toThrow(
      `Extension ${resolve(fixture('never-loads.ts'))} did not finish loading within 300 ms (a top-level await that never settles?)`,
    )
    const t = await createTestSession({ extensions: [fixture('guard.ts')], mockUI: { confirm: true }, extensionLoadTimeout: 60_000 })
    await t.run(when('hi', [calls('greet', { name: 'Cy' }), says('ok')]))
    expect(t).toHaveToolResult('greet', { text: 'Hello, Cy!' })
  }, 10_000)

  it('gives up after 3000 ms by default', async () => {
    await expect(createTestSession({ extensions: [fixture('never-loads.ts')] })).rejects.toThrow(
      `Extension ${resolve(fixture('never-loads.ts'))} did not finish loading within 3000 ms (a top-level await that never settles?)`,
    )
  }, 10_000)
})

describe('what a busy session is running, as a timed-out test names it', () => {
  const neverSettles = () => new Promise<never>(() => {})
  const stopped = (what: string) => `dispose(): the agent did not stop within 1000 ms of abort(): ${what} was still running`

  it('is nothing while the test does not wait for the session', async () => {
    const t = await createBareSession()
    await t.run(when('hi', [says('hello')]))
    expect(describeRunning(t)).toBeUndefined()
    await t.dispose()
  })

  it("names an extension's handler that has not returned, before the model was asked", async () => {
    const t = await createBareSession({ extensions: [(pi) => void pi.on('input', neverSettles)] })
    void t.run(when('hi', [says('hello')])).catch(() => {})
    await expect.poll(() => describeRunning(t)).toBe('run(when("hi")), turn 1 ("hi"), before playbook step 1: the "input" handler of <inline:1> had not finished')
    // The agent itself had not started: abort() stops it at once, and the handler is abandoned.
    await t.dispose()
  })

  it("names a command's handler that has not returned", async () => {
    const t = await createBareSession({ extensions: [(pi) => pi.registerCommand('deploy', { description: 'hangs', handler: neverSettles })] })
    void t.command('deploy').catch(() => {})
    await expect.poll(() => describeRunning(t)).toBe('command("deploy"), turn 1 ("/deploy"), before playbook step 1: the "/deploy command" handler of <inline:1> had not finished')
    await t.dispose()
  })

  it('names the model request that waits for a calls(...).then callback', async () => {
    const t = await createBareSession({ mockTools: { bash: 'ran' } })
    void t.run(when('go', [calls('bash', { command: 'ls' }).then(neverSettles), says('done')])).catch(() => {})
    await expect
      .poll(() => describeRunning(t))
      .toBe('run(when("go")), turn 1 ("go"), playbook step 1: the model request for playbook step 2 (a calls(...).then callback) had not finished')
    await expect(t.dispose()).rejects.toThrow(stopped('the model request for playbook step 2 (a calls(...).then callback)'))
  })
})

describe('a session_shutdown handler that never returns', () => {
  it('fails dispose() within the bound, naming the handler, and the temp dirs are removed all the same', async () => {
    const t = await createBareSession({ extensions: [(pi) => void pi.on('session_shutdown', () => new Promise<never>(() => {}))] })
    await expect(t.dispose()).rejects.toThrow(
      'dispose(): session_shutdown did not finish within 3000 ms: the "session_shutdown" handler of <inline:1> had not returned. ' +
        "The session's temp dirs are removed all the same; the handler is abandoned.",
    )
    await expect.poll(() => existsSync(t.home) || existsSync(t.cwd)).toBe(false)
  }, 20_000)
})
