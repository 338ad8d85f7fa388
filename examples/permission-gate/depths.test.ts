// The same tests at both depths: in process (fast, exact, coverage) and against the real `pi` CLI in RPC
// mode, as users run the extension. The process depth starts Pi for each test: seconds, not milliseconds,
// so only the tests worth it run there (docs/process-depth.md says when).
import { describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

const gate = { extensions: ['./permission-gate/index.ts'], mockTools: { bash: (p: Record<string, unknown>) => `ran ${p.command}` } }
// A bound on a loaded machine's start of Pi, not a measurement.
const SLOW = 120_000

describe.each([
  { depth: 'in process', process: false },
  { depth: 'in a pi process', process: true },
])('permission gate $depth', ({ process }) => {
  it('blocks rm -rf when the user says no', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...gate, process, mockUI: { confirm: false } })
    await t.run(when('clean up', [calls('bash', { command: 'rm -rf /' }), says('I could not.')]))
    expect(t).toHaveBlocked('bash', 'Blocked by the user: rm -rf /')
    expect(t).toHavePrompted('confirm', 'Run a dangerous command?')
  })

  it('runs it when the user says yes, and warns', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...gate, process, mockUI: { confirm: true } })
    await t.run(when('clean up', [calls('bash', { command: 'rm -rf build' }), says('Cleaned.')]))
    expect(t).not.toHaveBlocked('bash')
    expect(t).toHaveToolResult('bash', { text: 'ran rm -rf build' })
    expect(t).toHaveNotified('Allowed: rm -rf build', 'warning')
  })

  it('never asks about a safe command', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...gate, process, mockUI: { strict: true } })
    await t.run(when('list', [calls('bash', { command: 'ls -la' }), says('Listed.')]))
    expect(t).not.toHavePrompted('confirm')
    expect(t).toHaveToolResult('bash', { text: 'ran ls -la' })
  })
})
