import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionManager } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

const guard = { extensions: ['./session-report/index.ts'], mockTools: { bash: (p: Record<string, unknown>) => `ran ${p.command}` } }
const ship = when('ship it', [calls('bash', { command: 'npm test' }), calls('bash', { command: 'git push origin main' }), says('Done.')])

// Should one of these tests fail, it carries each of its sessions: Pi's HTML export and Pi's session file,
// listed under the test in Vitest's HTML report and UI. Its failure message ends with the session's timeline.
describe('push guard', () => {
  it('blocks a push the user declines', async () => {
    const t = await createTestSession({ ...guard, mockUI: { confirm: false } })
    await t.run(ship)
    expect(t).toHaveBlocked('bash', { command: 'git push origin main' }, 'declined')
    expect(t).toHaveToolResult('bash', { text: 'ran npm test' })
  })

  it('lets a push the user allows go ahead, and says so', async () => {
    const t = await createTestSession({ ...guard, mockUI: { confirm: true } })
    await t.run(ship)
    expect(t).not.toHaveBlocked('bash')
    expect(t).toHaveNotified('Pushing: git push origin main', 'info')
  })
})

describe('the session in Pi’s own format', () => {
  const dir = mkdtempSync(join(tmpdir(), 'session-report-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('saves it at any time; Pi’s SessionManager opens the same messages', async () => {
    const t = await createTestSession({ ...guard, mockUI: { confirm: false } })
    await t.run(ship)
    const file = t.saveSession(join(dir, 'ship-it.jsonl'))
    expect(SessionManager.open(file).buildSessionContext().messages).toEqual(t.session.messages)
  })
})
