import { expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, when } from '../environment/index.js'
import { CURRENT_LINE } from './support/pi-line.js'

/** A loop extension: once a run ends, it asks for one more turn, as "keep going until done" extensions do. */
function loopOnce(send: (pi: ExtensionAPI) => void) {
  return (pi: ExtensionAPI) => {
    let sent = false
    pi.on('agent_end', async () => {
      if (sent) return
      sent = true
      send(pi)
    })
  }
}

const cases = {
  'pi.sendMessage(..., { triggerTurn: true })': (pi: ExtensionAPI) => pi.sendMessage({ customType: 'loop', content: 'Check again.', display: true }, { triggerTurn: true }),
  "pi.sendUserMessage(..., { deliverAs: 'followUp' })": (pi: ExtensionAPI) => pi.sendUserMessage('Check again.', { deliverAs: 'followUp' }),
}

for (const [name, send] of Object.entries(cases)) {
  it(`a follow-up queued from agent_end by ${name}: Pi 0.73 holds it, and the not-consumed diagnostic names it`, async () => {
    const t = await createTestSession({ extensions: [loopOnce(send)] })
    const run = t.run(when('fix it', [says('Fixed.'), says('Checked: all good.')]))
    if (CURRENT_LINE) {
      // Pi 1.x delivers the follow-up at once: a second turn takes the second step.
      await run
      expect(t.events.lastAssistantText()).toBe('Checked: all good.')
      return
    }
    const what = name.startsWith('pi.sendMessage') ? 'a custom message (customType "loop") "Check again."' : 'a user message "Check again."'
    await expect(run).rejects.toThrow(
      `Pi still holds 1 queued message(s) that no turn delivered: ${what}, queued by the "agent_end" handler of <inline:1>.\n` +
        'A message sent while the agent is finishing (pi.sendMessage(..., { triggerTurn: true }) or pi.sendUserMessage(...) from an\n' +
        'agent_end handler) is queued as a follow-up; Pi 0.73 delivers it only with the next prompt',
    )
  })
}

it('without a queued message, the diagnostic gives the usual reasons', async () => {
  const t = await createTestSession()
  await expect(t.run(when('fix it', [says('Fixed.'), says('Checked.')]))).rejects.toThrow(/Pi stopped asking the model before the script ran out/)
})

it('a steering message Pi already delivered is not among those the diagnostic says it still holds', async () => {
  const t = await createTestSession({
    extensions: [
      (pi: ExtensionAPI) => {
        pi.on('tool_call', () => pi.sendUserMessage('Also run the tests.', { deliverAs: 'steer' }))
        loopOnce(cases["pi.sendUserMessage(..., { deliverAs: 'followUp' })"])(pi)
      },
    ],
  })
  const run = t.run(when('fix it', [calls('bash', { command: 'ls' }), says('Fixed.'), says('Checked.')]))
  if (CURRENT_LINE) {
    await run
    expect(t.events.lastAssistantText()).toBe('Checked.')
    return
  }
  await expect(run).rejects.toThrow(
    'Pi still holds 1 queued message(s) that no turn delivered: a user message "Check again.", queued by the "agent_end" handler of <inline:1>.\n',
  )
})
