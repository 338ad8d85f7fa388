import { afterEach, expect, it, vi } from 'vitest'
import { createTestSession, fails, says, when } from 'vitest-environment-pi'

const goalMode = { extensions: ['./goal-mode/index.ts'] }

afterEach(() => {
  vi.useRealTimers()
})

it('continues on its own until the model says GOAL MET: each turn it starts is scripted and awaited', async () => {
  const t = await createTestSession(goalMode)
  const second = t.next(when('Continue with the goal.', [says('Tests written. GOAL MET')]))
  await t.command('goal', 'write the tests', [says('Started on the tests.')])
  await second
  expect(t).toHaveNotified('Goal met: write the tests', 'info')
  expect(t).toHaveSetStatus('goal', undefined)
})

it('backs off for two minutes on a rate limit, under fake timers', async () => {
  vi.useFakeTimers()
  const t = await createTestSession(goalMode)
  await t.command('goal', 'ship it', [fails('429 rate limit exceeded')])
  expect(t).toHaveNotified('Rate limited: retrying in 2 minutes', 'warning')
  const retry = t.next(when('Retry: continue with the goal.', [says('Shipped. GOAL MET')]))
  vi.advanceTimersByTime(119_999)
  expect(t.events.modelRequests).toHaveLength(1)
  vi.advanceTimersByTime(1)
  await retry
  expect(t).toHaveNotified('Goal met: ship it')
})
