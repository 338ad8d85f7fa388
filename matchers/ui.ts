// What the extension showed the user: notifications, dialogs, status.
import type { MatcherState } from 'vitest'
import type { UICallRecord } from '../src/records/records.js'
import { requireReceived } from './receiver.js'
import { report, type MatcherOutcome } from './report.js'
import { uiCalls } from './timeline.js'
import { describeUI, matchesText, matchesValue, numbered, printExpectedLine, printReceivedLine, type TextMatcher } from './text.js'

function listOf(state: MatcherState, calls: UICallRecord[], what: string): string {
  return calls.length === 0 ? `There was no ${what}.` : `Calls made:\n${numbered(calls.map(describeUI(state)))}`
}

/** Pi's levels, and any other an extension passes (the harness records what it got). */
export type NotifyLevel = 'info' | 'warning' | 'error' | (string & {})

export function toHaveNotified(this: MatcherState, received: unknown, message: TextMatcher, level?: NotifyLevel): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveNotified')
  const notes = events.uiCallsFor('notify')
  const pass = notes.some((c) => matchesText(this, c.args[0], message) && (level === undefined || c.args[1] === level))
  const what = `a notification matching ${printExpectedLine(this, message)}${level ? ` at level ${level}` : ''}`
  return report(this, {
    matcher: 'toHaveNotified',
    timeline: { events, focus: uiCalls('notify') },
    args: level === undefined ? 'message' : 'message, level',
    pass,
    expected: `Expected ${what}.`,
    notExpected: `Expected no ${what}.`,
    happened: () => listOf(this, notes, 'notification'),
  })
}

const DIALOGS = ['confirm', 'select', 'input', 'editor'] as const
export type DialogMethod = (typeof DIALOGS)[number]

/** What a dialog returned and the options it was opened with (`{ timeout, signal: true }`), both matched like expect.objectContaining. */
export interface ExpectedDialog {
  answer?: unknown
  options?: Record<string, unknown>
}

export function toHavePrompted(this: MatcherState, received: unknown, method: DialogMethod, title?: TextMatcher, expected?: ExpectedDialog): MatcherOutcome {
  const { events } = requireReceived(received, 'toHavePrompted')
  if (!DIALOGS.includes(method)) throw new TypeError(`toHavePrompted(method): method must be one of ${DIALOGS.join(', ')}, got ${this.utils.stringify(method)}`)
  const dialogs = events.ui.filter((c) => (DIALOGS as readonly string[]).includes(c.method))
  const fits = (c: UICallRecord) =>
    (title === undefined || matchesText(this, c.args[0], title)) &&
    (expected === undefined || !('answer' in expected) || matchesValue(this, c.returnValue, expected.answer)) &&
    (expected?.options === undefined || matchesValue(this, c.options ?? {}, expected.options))
  const pass = events.uiCallsFor(method).some(fits)
  const answered = expected !== undefined && 'answer' in expected ? ` answered ${printExpectedLine(this, expected.answer)}` : ''
  const opened = expected?.options === undefined ? '' : ` with options ${printExpectedLine(this, expected.options)}`
  const what = `a ${method} dialog${title === undefined ? '' : ` titled ${printExpectedLine(this, title)}`}${opened}${answered}`
  return report(this, {
    matcher: 'toHavePrompted',
    timeline: { events, focus: uiCalls(...DIALOGS) },
    args: expected !== undefined ? 'method, title, { answer, options }' : title === undefined ? 'method' : 'method, title',
    pass,
    expected: `Expected ${what}.`,
    notExpected: `Expected no ${what}.`,
    happened: () => listOf(this, dialogs, 'dialog'),
  })
}

export function toHaveSetStatus(this: MatcherState, received: unknown, key: string, ...text: [text?: TextMatcher]): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveSetStatus')
  const statuses = events.uiCallsFor('setStatus')
  // toHaveSetStatus(key, undefined) asks for a cleared status; toHaveSetStatus(key) for any.
  const fits = (c: UICallRecord) =>
    c.args[0] === key && (text.length === 0 || (text[0] === undefined ? c.args[1] === undefined : matchesText(this, c.args[1], text[0])))
  const what = `status ${printExpectedLine(this, key)} set${text.length === 0 ? '' : text[0] === undefined ? ' to cleared (undefined)' : ` to ${printExpectedLine(this, text[0])}`}`
  return report(this, {
    matcher: 'toHaveSetStatus',
    timeline: { events, focus: uiCalls('setStatus') },
    args: text.length === 0 ? 'key' : 'key, text',
    pass: statuses.some(fits),
    expected: `Expected ${what}.`,
    notExpected: `Expected no ${what}.`,
    happened: () => listOf(this, statuses, 'status set'),
  })
}
