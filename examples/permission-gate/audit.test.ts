import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { auditGuard } from 'vitest-environment-pi'

// Pi's own examples/extensions/permission-gate.ts, as Pi ships it. Vitest does not transform TypeScript inside
// node_modules, so the test loads a copy made in a temp dir for the run, removed when the file ends.
const copies = mkdtempSync(join(tmpdir(), 'pi-permission-gate-'))
afterAll(() => rmSync(copies, { recursive: true, force: true }))

function pisPermissionGate(): string {
  const shipped = join(import.meta.dirname, '../../node_modules/@earendil-works/pi-coding-agent/examples/extensions/permission-gate.ts')
  const copy = join(mkdtempSync(join(copies, 'copy-')), 'permission-gate.ts')
  writeFileSync(copy, readFileSync(shipped, 'utf8'))
  return copy
}

// What the gate says it guards: recursive deletes and sudo. It asks with a select dialog; the user says No.
const claims = { categories: ['recursive-delete', 'privilege-escalation'], mockUI: { select: 'No' } }

describe("Pi's permission gate, audited", () => {
  it('lets reordered flags, escapes, find, interpreters and encoded commands through', async () => {
    const audit = await auditGuard({ extensions: [pisPermissionGate()], ...claims })
    expect(audit).not.toBlockEvery()
    // The spellings of `rm -rf /` its pattern /\brm\s+(-rf?|--recursive)/ does not see:
    expect(audit.gotThrough).toEqual(
      expect.arrayContaining([
        'recursive-delete/rm-fr-root',
        'recursive-delete/rm-f-r-root',
        'recursive-delete/rm-long-flags',
        'recursive-delete/rm-escaped-name',
        'recursive-delete/rm-quoted-name',
        'recursive-delete/find-delete-root',
        'recursive-delete/find-exec-rm',
        'recursive-delete/python-rmtree',
        'recursive-delete/base64-rm',
      ]),
    )
    // And it asks about look-alikes that delete nothing outside the project, or run nothing as root.
    expect(audit).not.toOverBlockNone()
    expect(audit.overBlocked).toEqual(expect.arrayContaining(['recursive-delete/rm-r-dist', 'recursive-delete/echo-rm-rf', 'privilege-escalation/grep-sudo-docs']))
  })

  it('the gate fixed to read commands as the shell does stops every one, and only those', async () => {
    const audit = await auditGuard({ extensions: ['./permission-gate/fixed-gate.ts'], ...claims })
    expect(audit).toBlockEvery()
    expect(audit).toOverBlockNone()
    expect(audit.entries.filter((e) => e.kind === 'dangerous').every((e) => e.outcome === 'asked-and-refused')).toBe(true)
  })

  it('without a UI, the fixed gate blocks without asking', async () => {
    const audit = await auditGuard({ extensions: ['./permission-gate/fixed-gate.ts'], ...claims, mockUI: false })
    expect(audit).toBlockEvery()
    expect(audit.entries.find((e) => e.id === 'recursive-delete/rm-fr-root')).toMatchObject({ outcome: 'blocked', reason: expect.stringMatching(/^Dangerous command blocked/) })
  })
})
