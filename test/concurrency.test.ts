// Sessions of tests that run at the same time belong each to its own test: none is disposed, verified
// or answered by another.
import { setTimeout as delay } from 'node:timers/promises'
import { describe, expect } from 'vitest'
import { calls, createTestSession, says, test, when } from '../environment/index.js'

const ORDER = [1, 2, 3, 4, 5]

describe.concurrent('test.concurrent with createTestSession', () => {
  // Each test finishes at a different moment; before, the first to finish disposed the others' sessions.
  test.each(ORDER)('test %i keeps its session until it ends', async (i) => {
    const t = await createTestSession({ mockTools: { bash: async () => (await delay(i * 15), `ran ${i}`) } })
    await t.run(when(`go ${i}`, [calls('bash', { command: 'ls' }), says(`done ${i}`)]))
    await delay((6 - i) * 15)
    await t.run(when('again', [says(`still open ${i}`)]))
    expect(t.events.toolResults).toMatchObject([{ text: `ran ${i}` }])
    expect(t.events.lastAssistantText()).toBe(`still open ${i}`)
  })
})

describe.concurrent('test.concurrent with the session fixture', () => {
  test.for(ORDER)('test %i keeps its session until it ends', async (i, { session }) => {
    await session.run(when(`go ${i}`, [says(`done ${i}`)]))
    await delay((6 - i) * 15)
    await session.run(when('again', [says(`still open ${i}`)]))
    expect(session.events.lastAssistantText()).toBe(`still open ${i}`)
  })
})
