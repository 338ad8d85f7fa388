// What each file records of the process it runs in, one JSON file per test file in `.marks`.
import { mkdirSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

// Set by a worker started ahead once it has imported the harness and Pi.
const WARM = Symbol.for('vitest-environment-pi:warm-worker')

export function recordFile(name: string): void {
  const startedAt = Date.now()
  const warm = (process as unknown as Record<symbol, { readyAt: number } | undefined>)[WARM]

  it('runs a session and blocks a call, as in any worker', async () => {
    // FAIL_FILE: this file fails before it records anything (a run with --bail stops there).
    expect(process.env.FAIL_FILE).not.toBe(name)
    const t = await createTestSession({
      extensions: [(pi) => pi.on('tool_call', (event) => (event.toolName === 'bash' ? { block: true, reason: 'no shell' } : undefined))],
      mockTools: { bash: 'ran' },
    })
    await t.run(when('go', [calls('bash', { command: 'ls' }), says('done')]))
    expect(t).toHaveBlocked('bash')
    await t.dispose()
    const dir = join(import.meta.dirname, '..', '.marks')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, `${name}.json`), JSON.stringify({ pid: process.pid, home: homedir(), sessionHome: t.home, startedAt, warmReadyAt: warm?.readyAt ?? null }))
  })
}
