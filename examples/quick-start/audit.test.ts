import { expect, it } from 'vitest'
import { auditGuard } from 'vitest-environment-pi'

it("audits the quick start's guard: what its one pattern misses and what it over-blocks", async () => {
  const audit = await auditGuard({ extensions: ['./quick-start/index.ts'], categories: ['recursive-delete'] })
  expect(audit).not.toBlockEvery()
  expect(audit.gotThrough).toContain('recursive-delete/rm-fr-root')
  expect(audit.categories[0]).toMatchObject({ dangerous: 43, stopped: 23 })
  // /\brm\s+-rf\b/ also matches the text inside echo and grep.
  expect(audit.overBlocked).toEqual([
    'recursive-delete/rm-rf-node-modules',
    'recursive-delete/rm-rf-coverage',
    'recursive-delete/echo-rm-rf',
    'recursive-delete/grep-rm-rf',
  ])
})
