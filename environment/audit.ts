// auditGuard under Vitest: its sessions are the environment's, with the file's defaults (root, mocks), ended
// with the test; not attached to a failing test, as an audit runs a session per category.
import { auditGuard as runAudit, type AuditGuardOptions } from '../src/audit/audit.js'
import type { AuditResult } from '../src/audit/result.js'
import { createTestSession } from './sessions.js'

/** Runs the guard in `extensions` against the corpus; see docs/guard-audit.md. */
export function auditGuard(options: AuditGuardOptions): Promise<AuditResult> {
  return runAudit(options, (sessionOptions) => createTestSession({ ...sessionOptions, attach: 'never' }))
}
