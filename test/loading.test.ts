import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when } from '../src/index.js'

const fixture = (name: string) => `test/fixtures/extensions/${name}`

describe('extension loading', () => {
  it('names the file and the cause when an extension has a syntax error', async () => {
    const path = resolve(fixture('syntax-error.ts'))
    await expect(createTestSession({ extensions: [fixture('syntax-error.ts')] })).rejects.toThrow(
      new RegExp(`^Extension ${path} failed to load: .+`),
    )
  })

  it('names the file when the default export is missing', async () => {
    await expect(createTestSession({ extensions: [fixture('no-default.ts')] })).rejects.toThrow(
      `Extension ${resolve(fixture('no-default.ts'))} must export a factory function as default export (pi) => void; found no default export`,
    )
  })

  it('names the file and the error when the factory throws', async () => {
    await expect(createTestSession({ extensions: [fixture('throwing-factory.ts')] })).rejects.toThrow(
      `Extension failed to load:\n  ${resolve(fixture('throwing-factory.ts'))}: its factory threw: config file missing`,
    )
  })

  it('names a missing file', async () => {
    await expect(createTestSession({ extensions: [fixture('nope.ts')] })).rejects.toThrow(
      `Extension ${resolve(fixture('nope.ts'))} failed to load:`,
    )
  })

  it('gives every session fresh module state, as Pi re-evaluates an extension on every load', async () => {
    const details = []
    for (let i = 0; i < 2; i++) {
      const t = await createTestSession({ extensions: [fixture('guard.ts')], mockUI: { confirm: true } })
      await t.run(when('hi', [calls('greet', { name: 'a' }), calls('greet', { name: 'b' }), says('ok')]))
      details.push(t.events.toolResultsFor('greet').map((r) => r.details))
      await t.dispose()
    }
    // `loads` lives in the extension module, `count` in a module it imports: both start over per session.
    const expected = [
      { confirmed: true, loads: 1, count: 1 },
      { confirmed: true, loads: 1, count: 2 },
    ]
    expect(details).toEqual([expected, expected])
  })

  it('accepts inline factories next to files, and reports their tools as registered', async () => {
    const t = await createTestSession({
      extensions: [
        fixture('guard.ts'),
        (pi) => pi.registerCommand('ping', { handler: async (_args, ctx) => ctx.ui.notify('pong') }),
      ],
    })
    await t.command('ping')
    expect(t.events.uiCallsFor('notify').map((c) => c.args[0])).toEqual(['pong'])
    expect(t.session.getAllTools().find((tool) => tool.name === 'greet')?.sourceInfo.path).toBe(resolve(fixture('guard.ts')))
    await t.dispose()
  })
})
