// Never a hang, in a whole Vitest: a test that times out while a session is busy fails naming what the
// session was running, and leaves no temp dir. Runs in CI within a minute.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { failuresByTitle, ROOT, runVitest } from './support/consumer.js'

describe('a test that times out while a tool never returns and ignores its abort signal', () => {
  const stillRunning = (what: string) =>
    `dispose(): the agent did not stop within 1000 ms of abort(): ${what} was still running and ignored its abort signal. ` +
    "The session's temp dirs are removed all the same; what was running is abandoned."

  it('fails naming the session, the turn, the step and the tool, and leaves no temp dir', async () => {
    // The fixture's tests time out on purpose (2 s at most), in a Vitest of their own with its own TMPDIR.
    const temp = mkdtempSync(join(tmpdir(), 'hangs-'))
    try {
      const { report } = await runVitest(join(ROOT, 'test/fixtures/hangs'), [], { outputFile: join(temp, 'report.json'), env: { TMPDIR: temp }, timeoutMs: 50_000 })
      const failures = failuresByTitle(report)
      expect(Object.keys(failures).sort()).toEqual([
        'times out in an extension handler that never returns',
        'times out in the second session of the test',
        'times out in the session fixture',
        'times out while a session is still starting',
      ])
      expect(failures['times out in the second session of the test']).toContain(
        [
          'Test timed out in 2000ms while session 2 of this test (extensions: ../extensions/guard.ts) was in run(when("hang")), turn 1 ("hang"), ' +
            'playbook step 1: tool "bash" (toolCallId call_1_1, playbook step 1) had not finished.',
          stillRunning('tool "bash" (toolCallId call_1_1, playbook step 1)'),
        ].join('\n'),
      )
      expect(failures['times out in the session fixture']).toContain(
        'Test timed out in 2000ms while the session fixture (no extensions) was in run(when("second")), turn 2 ("second"), ' +
          'playbook step 2: tool "read" (toolCallId call_2_1, playbook step 2) had not finished.',
      )
      expect(failures['times out in an extension handler that never returns']).toContain(
        'Test timed out in 2000ms while session 1 of this test (extensions: <inline:1>) was in run(when("guarded")), turn 1 ("guarded"), ' +
          'playbook step 1: the "tool_call" handler of <inline:1>, tool "bash" (toolCallId call_1_1, playbook step 1) had not finished.',
      )
      // The fixture's last test checked that each session's cwd was gone; the run left no temp dir at all,
      // not even the session that was ready only after its test had timed out.
      expect(report.numPassedTests).toBe(1)
      expect(readdirSync(temp).filter((name) => name.startsWith('pi-'))).toEqual([])
    } finally {
      rmSync(temp, { recursive: true, force: true })
    }
  }, 60_000)
})
