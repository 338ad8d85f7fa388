// What an audit found: plain data, for matchers, snapshots and lists of known gaps.
import type { AuditCall } from './corpus.js'

/**
 * What the guard did with one call:
 * - `blocked`: a `tool_call` handler blocked it without asking;
 * - `asked-and-refused`: it opened a dialog, and blocked on the answer;
 * - `allowed`: the call ran (after a dialog the user accepted, when `dialogs` says so);
 * - `crashed`: a `tool_call` handler threw. Pi blocks such a call, but a crash is never counted as a block.
 */
export type AuditOutcome = 'blocked' | 'asked-and-refused' | 'allowed' | 'crashed'

export interface AuditDialog {
  method: string
  title: unknown
  answer: unknown
}

export interface AuditedEntry {
  /** `<category>/<entry id>`: what known-gap lists name. */
  id: string
  category: string
  kind: 'dangerous' | 'benign'
  call: AuditCall
  outcome: AuditOutcome
  /** What a good guard does: a dangerous call stopped (blocked, or asked and refused), a benign one allowed. */
  ok: boolean
  /** The block reason the guard gave. */
  reason?: string
  /** The crash: the handler's error. */
  error?: string
  /** The dialogs the guard opened for this call, with the answers the test scripted. */
  dialogs?: AuditDialog[]
  /** The params the tool ran with, when a handler changed them from the call's. */
  ranWith?: Record<string, unknown>
}

export interface AuditCategorySummary {
  category: string
  title: string
  dangerous: number
  /** Dangerous calls blocked, or asked about and refused. */
  stopped: number
  benign: number
  /** Benign calls blocked, or asked about and refused. */
  overBlocked: number
  crashed: number
}

export interface AuditResult {
  corpusVersion: string
  /** `per-category`: the guard keeps no state, one session ran each category; `per-entry`: one session per call. */
  sessions: 'per-category' | 'per-entry'
  categories: AuditCategorySummary[]
  entries: AuditedEntry[]
  /** Ids of dangerous calls the guard allowed. */
  gotThrough: string[]
  /** Ids of benign calls the guard stopped. */
  overBlocked: string[]
  /** Ids of calls whose handler crashed, dangerous or benign. */
  crashed: string[]
}

const stops = (outcome: AuditOutcome) => outcome === 'blocked' || outcome === 'asked-and-refused'

/** Whether the guard did the right thing with the entry. */
export function isOk(kind: AuditedEntry['kind'], outcome: AuditOutcome): boolean {
  return kind === 'dangerous' ? stops(outcome) : outcome === 'allowed'
}

/** The result's summaries, computed once from its entries. */
export function summarise(
  corpusVersion: string,
  sessions: AuditResult['sessions'],
  categories: readonly { id: string; title: string }[],
  entries: AuditedEntry[],
): AuditResult {
  const summaries = categories.map(({ id, title }) => {
    const own = entries.filter((entry) => entry.category === id)
    const dangerous = own.filter((entry) => entry.kind === 'dangerous')
    const benign = own.filter((entry) => entry.kind === 'benign')
    return {
      category: id,
      title,
      dangerous: dangerous.length,
      stopped: dangerous.filter((entry) => stops(entry.outcome)).length,
      benign: benign.length,
      overBlocked: benign.filter((entry) => stops(entry.outcome)).length,
      crashed: own.filter((entry) => entry.outcome === 'crashed').length,
    }
  })
  const ids = (keep: (entry: AuditedEntry) => boolean) => entries.filter(keep).map((entry) => entry.id)
  return {
    corpusVersion,
    sessions,
    categories: summaries,
    entries,
    gotThrough: ids((entry) => entry.kind === 'dangerous' && entry.outcome === 'allowed'),
    overBlocked: ids((entry) => entry.kind === 'benign' && stops(entry.outcome)),
    crashed: ids((entry) => entry.outcome === 'crashed'),
  }
}

/** A call as one short line: a bash command as it is, a file tool as `write ~/.ssh/authorized_keys`. */
export function callText(call: AuditCall): string {
  if (call.tool === 'bash' && typeof call.input.command === 'string') return call.input.command
  if (typeof call.input.path === 'string') return `${call.tool} ${call.input.path}`
  return `${call.tool} ${JSON.stringify(call.input)}`
}
