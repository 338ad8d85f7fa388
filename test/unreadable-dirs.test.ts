// A dir an extension made unreadable (chmod 000) in a session's temp dirs is removed all the same, its
// permissions restored first; what still cannot be removed is reported naming the session and its test.
import { spawn } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from './support/consumer.js'

// Root may remove any dir: the removal runs as `nobody` there, in a TMPDIR of its own.
const asRoot = process.getuid?.() === 0
const NOBODY = 65534
const base = mkdtempSync(join(tmpdir(), 'pi-unreadable-'))
chmodSync(base, 0o755)
if (asRoot) chownSync(base, NOBODY, NOBODY)
afterAll(() => rmSync(base, { recursive: true, force: true }))

describe('session dirs made unreadable', () => {
  it('are removed, their permissions restored first; one that still cannot be is reported naming its session and test', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'test/fixtures/processes/unreadable-dirs.mjs')], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: base },
      stdio: ['pipe', 'pipe', 'inherit'],
      ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    })
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
    const [, second] = JSON.parse((await lines.next()).value as string) as string[]
    // In the second, a dir of another user, which the session's user can neither empty nor chmod.
    if (asRoot) {
      mkdirSync(join(second!, 'owned-by-root'))
      writeFileSync(join(second!, 'owned-by-root', 'file'), 'x')
    }
    child.stdin.write('go\n')
    const { settled, left } = JSON.parse((await lines.next()).value as string) as { settled: string; left: boolean[] }
    if (!asRoot) return expect({ settled, left }).toEqual({ settled: 'settled', left: [false, false] })
    expect(left).toEqual([false, true])
    expect(settled).toMatch(/^could not remove a temp dir:\n {2}\S+session-cwd-\w+ \(session 2 of test "locks its cwd" \(extensions: \.\/locker\.ts\)\): EACCES/)
  })
})
