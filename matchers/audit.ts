// What a guard audit found (auditGuard's result): every dangerous call stopped, no benign one stopped.
import type { MatcherState } from 'vitest'
import type { AuditedEntry, AuditResult } from '../src/audit/result.js'
import { describeValue } from './receiver.js'
import { report, type MatcherOutcome } from './report.js'
import { printReceivedLine } from './text.js'

export interface AuditExpectation {
  /** Ids (`<category>/<entry>`) of known gaps the test accepts; one that no longer fails must leave the list. */
  except?: string[]
}

// A failure table longer than this buries the pattern; the rest is counted by category.
const MAX_ROWS = 30
const MAX_ROWS_PER_CATEGORY = 6

const isAuditResult = (value: unknown): value is AuditResult =>
  typeof value === 'object' && value !== null && Array.isArray((value as AuditResult).entries) && Array.isArray((value as AuditResult).gotThrough)

function requireAudit(value: unknown, matcher: string, expectation: AuditExpectation | undefined): { audit: AuditResult; except: Set<string> } {
  if (!isAuditResult(value)) throw new TypeError(`expect(received).${matcher}(): received must be the result of auditGuard(...), got ${describeValue(value)}`)
  const except = expectation?.except ?? []
  if (!Array.isArray(except) || except.some((id) => typeof id !== 'string')) {
    throw new TypeError(`expect(audit).${matcher}({ except }): except must be an array of entry ids ("category/entry"), got ${describeValue(except)}`)
  }
  const unknown = except.filter((id) => !value.entries.some((entry) => entry.id === id))
  if (unknown.length > 0) throw new TypeError(`expect(audit).${matcher}({ except }): no audited entry has the id ${unknown.map((id) => `"${id}"`).join(', ')}`)
  return { audit: value, except: new Set(except) }
}

/** Every dangerous call was blocked, or asked about and refused; a crash never counts as stopped. */
export function toBlockEvery(this: MatcherState, received: unknown, expectation?: AuditExpectation): MatcherOutcome {
  return judge(this, received, expectation, {
    matcher: 'toBlockEvery',
    kind: 'dangerous',
    expected: 'Expected the guard to stop every dangerous call: block it, or ask and be refused (a crash is not a stop).',
    notExpected: 'Expected some dangerous call to get through the guard.',
    failed: 'got through',
    passedAll: (count) => `All ${count} dangerous calls were stopped.`,
  })
}

/** Every benign look-alike was allowed: neither blocked nor refused after a dialog, and no crash. */
export function toOverBlockNone(this: MatcherState, received: unknown, expectation?: AuditExpectation): MatcherOutcome {
  return judge(this, received, expectation, {
    matcher: 'toOverBlockNone',
    kind: 'benign',
    expected: 'Expected the guard to allow every benign look-alike (a crash is not an allow).',
    notExpected: 'Expected the guard to stop some benign look-alike.',
    failed: 'over-blocked',
    passedAll: (count) => `All ${count} benign calls were allowed.`,
  })
}

interface Judgement {
  matcher: string
  kind: AuditedEntry['kind']
  expected: string
  notExpected: string
  /** What a failing entry did, in words: `got through`, `over-blocked`. */
  failed: string
  passedAll: (count: number) => string
}

function judge(state: MatcherState, received: unknown, expectation: AuditExpectation | undefined, j: Judgement): MatcherOutcome {
  const { audit, except } = requireAudit(received, j.matcher, expectation)
  const entries = audit.entries.filter((entry) => entry.kind === j.kind)
  const failing = entries.filter((entry) => !entry.ok && !except.has(entry.id))
  // A known gap the guard now handles: the list must shrink, or it hides the next regression.
  const stale = entries.filter((entry) => entry.ok && except.has(entry.id))
  return report(state, {
    matcher: j.matcher,
    received: 'audit',
    args: expectation === undefined ? '' : '{ except }',
    pass: failing.length === 0 && stale.length === 0,
    expected: j.expected,
    notExpected: j.notExpected,
    happened: () => {
      const parts: string[] = []
      if (failing.length > 0) parts.push(table(state, failing, entries, j.failed))
      if (stale.length > 0) parts.push(`Listed in except but now handled as expected (remove them from the list):\n${stale.map((entry) => `  ${entry.id}`).join('\n')}`)
      if (parts.length === 0) parts.push(`${j.passedAll(entries.length)}${except.size > 0 ? ` (${except.size} known gap(s) excepted)` : ''}`)
      return parts.join('\n\n')
    },
  })
}

/** The failing entries by category, bounded; what does not fit is counted per category. */
function table(state: MatcherState, failing: AuditedEntry[], all: AuditedEntry[], failed: string): string {
  const categories = [...new Set(failing.map((entry) => entry.category))]
  const crashed = failing.filter((entry) => entry.outcome === 'crashed').length
  const lines = [
    `${failing.length} of ${all.length} ${all[0]?.kind ?? ''} calls ${failed}${crashed > 0 ? ` (${crashed} of them crashed the guard)` : ''}, in ${categories.length} categor${categories.length === 1 ? 'y' : 'ies'}:`,
  ]
  let rows = 0
  const left: string[] = []
  for (const category of categories) {
    const own = failing.filter((entry) => entry.category === category)
    const total = all.filter((entry) => entry.category === category).length
    const room = Math.max(0, Math.min(MAX_ROWS_PER_CATEGORY, MAX_ROWS - rows))
    if (room === 0) {
      left.push(`${category} ${own.length}`)
      continue
    }
    lines.push(`  ${category}: ${own.length} of ${total} ${failed}`)
    for (const entry of own.slice(0, room)) lines.push(`    ${row(state, entry)}`)
    rows += Math.min(room, own.length)
    if (own.length > room) lines.push(`    … and ${own.length - room} more in ${category}`)
  }
  if (left.length > 0) lines.push(`  … and ${left.length} more categor${left.length === 1 ? 'y' : 'ies'}: ${left.join(', ')}`)
  return lines.join('\n')
}

/** `allowed    bash "rm -fr /"  (recursive-delete/rm-fr-root)`, with what the guard said or threw. */
function row(state: MatcherState, entry: AuditedEntry): string {
  const { tool, input } = entry.call
  const shown = tool === 'bash' ? input.command : typeof input.path === 'string' ? input.path : input
  const dialog = entry.dialogs?.[0]
  const words = entry.error ?? entry.reason
  const said = words !== undefined ? `: ${words.length > 80 ? `${words.slice(0, 77)}...` : words}` : dialog ? ` after ${dialog.method} → ${String(dialog.answer)}` : ''
  return `${entry.outcome.padEnd(17)} ${tool} ${printReceivedLine(state, shown)}  (${entry.id})${said}`
}
