// Many sessions in one test: no listener warnings.
import { expect, it } from 'vitest'
import { createTestSession, says, when } from '../environment/index.js'

it('more than ten sessions in one test print no MaxListenersExceededWarning', async () => {
  const warnings: string[] = []
  const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`)
  process.on('warning', onWarning)
  try {
    const sessions = []
    for (let index = 0; index < 12; index++) sessions.push(await createTestSession())
    for (const t of sessions) await t.run(when('hi', [says('hello')]))
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve))
  } finally {
    process.off('warning', onWarning)
  }
  expect(warnings).toEqual([])
})
