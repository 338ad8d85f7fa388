// Turns an extension starts on its own (agent_end → timer → sendUserMessage, as goal modes do): an
// unscripted one fails the test, naming it; t.next(when(...)) scripts one and lets the test await it.
import { describe, expect, it, vi } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { createTestSession, says, when } from '../environment/index.js'
import { describeRunning } from '../src/session/activity.js'

/** After the first run ends, asks for one more turn from a timer, as a goal mode's retry does. */
function continuesOnce(message = 'Continue with the goal.', later: (start: () => void) => void = (start) => setTimeout(start, 5)) {
  let ended!: () => void
  const secondRunEnded = new Promise<void>((resolve) => (ended = resolve))
  let runs = 0
  const extension = (pi: ExtensionAPI) => {
    pi.on('agent_end', () => {
      runs++
      if (runs === 1) later(() => pi.sendUserMessage(message))
      if (runs === 2) ended()
    })
  }
  return { extension, secondRunEnded }
}

// From a timer, as goal modes do; and from setImmediate, which fires before the harness has seen Pi settle
// after the test's turn, as a timer does on a loaded machine: the turn is the extension's all the same, never
// more steps of the test's.
const STARTS: [string, ((start: () => void) => void) | undefined][] = [
  ['from a timer', undefined],
  ["while the test's turn is still ending", (start) => setImmediate(start)],
]

describe.each(STARTS)('a turn an extension starts %s', (_, later) => {
  it('fails the test when unscripted, naming the turn and its first message', async () => {
    const { extension, secondRunEnded } = continuesOnce('Continue with the goal.', later)
    const t = await createTestSession({ extensions: [extension] })
    await t.run(when('Reach the goal.', [says('Working on it.')]))
    await secondRunEnded
    expect(() => t.verify()).toThrow(
      'Unscripted model request: turn 2, which an extension started on its own with "Continue with the goal.", asked the model for step 2, ' +
        'but no turn is scripted for it.',
    )
  })

  it('is scripted by t.next(when(...)), and the test awaits it', async () => {
    const { extension } = continuesOnce('Continue with the goal.', later)
    const t = await createTestSession({ extensions: [extension] })
    const continued = t.next(when('Continue with the goal.', [says('Goal reached.')]))
    await t.run(when('Reach the goal.', [says('Working on it.')]))
    await continued
    expect(t.events.lastAssistantText()).toBe('Goal reached.')
    expect(t.events.modelRequests.map((request) => request.step)).toEqual([1, 2])
    expect(t.playbook.remaining).toBe(0)
  })
})

it('a turn that begins with another message than t.next expects fails, naming both', async () => {
  const { extension } = continuesOnce('Retry.')
  const t = await createTestSession({ extensions: [extension] })
  const continued = t.next(when('Continue with the goal.', [says('Goal reached.')]))
  await t.run(when('Reach the goal.', [says('Working on it.')]))
  await expect(continued).rejects.toThrow(
    't.next(when("Continue with the goal.")) expected the next turn an extension starts to begin with "Continue with the goal.", but turn 2 began with "Retry."',
  )
})

it('a t.next turn left with steps fails as a run() does', async () => {
  const { extension } = continuesOnce()
  const t = await createTestSession({ extensions: [extension] })
  const continued = t.next(when('Continue with the goal.', [says('Goal reached.'), says('Never asked for.')]))
  await t.run(when('Reach the goal.', [says('Working on it.')]))
  await expect(continued).rejects.toThrow('Playbook not consumed: turn 2 ("Continue with the goal.") ended after 1 of 2 step(s).')
})

it('a t.next turn no extension started fails the test when the session ends, naming it', async () => {
  const t = await createTestSession()
  void t.next(when('Continue with the goal.', [says('Goal reached.')]))
  await t.run(when('Reach the goal.', [says('Working on it.')]))
  await expect(t.dispose()).rejects.toThrow('t.next(when("Continue with the goal.")) was never started: no extension started a turn of its own')
})

it('a failing t.next turn the test never awaits still fails the test', async () => {
  const { extension, secondRunEnded } = continuesOnce('Retry.')
  const t = await createTestSession({ extensions: [extension] })
  void t.next(when('Continue with the goal.', [says('Goal reached.')]))
  await t.run(when('Reach the goal.', [says('Working on it.')]))
  await secondRunEnded
  await vi.waitFor(() => expect(() => t.verify()).toThrow('but turn 2 began with "Retry."'))
})

it('a test that times out awaiting a t.next turn is told which turn it waited for', async () => {
  const t = await createTestSession()
  void t.next(when('Continue with the goal.')).then(undefined, () => {})
  expect(describeRunning(t)).toBe('t.next(when("Continue with the goal.")), which no extension has started yet')
  await expect(t.dispose()).rejects.toThrow('was never started')
})
