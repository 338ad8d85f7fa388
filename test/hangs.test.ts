// Never a hang: what a stuck test was running is named, and a stuck extension module fails its load in
// bounded time without holding up the sessions after it. Runs in CI within a minute.
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when } from '../environment/index.js'

const fixture = (name: string) => `test/fixtures/extensions/${name}`

describe('an extension whose top-level await never settles', () => {
  it('fails to load within the bound, naming the file; a later session loads its extension', async () => {
    const started = Date.now()
    await expect(createTestSession({ extensions: [fixture('never-loads.ts')], extensionLoadTimeout: 300 })).rejects.toThrow(
      `Extension ${resolve(fixture('never-loads.ts'))} did not finish loading within 300 ms (a top-level await that never settles?)`,
    )
    expect(Date.now() - started).toBeLessThan(2000)
    const t = await createTestSession({ extensions: [fixture('guard.ts')], mockUI: { confirm: true } })
    await t.run(when('hi', [calls('greet', { name: 'Cy' }), says('ok')]))
    expect(t).toHaveToolResult('greet', { text: 'Hello, Cy!' })
  }, 10_000)

  it('gives up after 3000 ms by default', async () => {
    await expect(createTestSession({ extensions: [fixture('never-loads.ts')] })).rejects.toThrow(
      `Extension ${resolve(fixture('never-loads.ts'))} did not finish loading within 3000 ms (a top-level await that never settles?)`,
    )
  }, 10_000)
})
