// What the extension executed and fetched, and whether every limited mock was used.
import type { MatcherState } from 'vitest'
import type { ExecCallRecord, HttpCallRecord } from '../src/records/records.js'
import { describeValue, receivedOf, requireReceived } from './receiver.js'
import { report, type MatcherOutcome } from './report.js'
import { equals, matchesText, matchesValue, numbered, printExpectedLine, type TextMatcher } from './text.js'

const commandLine = (call: ExecCallRecord) => [call.command, ...call.args].join(' ')
const describeExec = (call: ExecCallRecord) => `${commandLine(call)} → ${call.error ? 'rejected' : `code ${call.result.code}`} (${call.answeredBy})`
const describeFetch = (call: HttpCallRecord) =>
  `${call.method} ${call.url} → ${call.status ?? call.error ?? 'no answer'} (${call.answeredBy})`

/** A string is the command or the whole command line; a RegExp is tested against the command line. */
function matchesCommand(call: ExecCallRecord, command: string | RegExp): boolean {
  return typeof command === 'string' ? call.command === command || commandLine(call) === command : command.test(commandLine(call))
}

/**
 * The expected args appear in the call's args in this order, others may come between (as tool params, what is
 * not listed is not checked); each compared by equality, asymmetric matchers allowed. Any other value (e.g.
 * an asymmetric matcher for the whole array) is compared with the args by equality.
 */
function matchesArgs(state: MatcherState, actual: string[], expected: unknown): boolean {
  if (!Array.isArray(expected)) return equals(state, actual, expected)
  let next = 0
  for (const arg of actual) if (next < expected.length && equals(state, arg, expected[next])) next++
  return next === expected.length
}

export function toHaveExecuted(this: MatcherState, received: unknown, command: string | RegExp, args?: unknown): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveExecuted')
  const pass = events.exec.some((call) => matchesCommand(call, command) && (args === undefined || matchesArgs(this, call.args, args)))
  const what = `${printExpectedLine(this, command)}${args === undefined ? '' : ` with args ${printExpectedLine(this, args)} (in this order, others may come between)`}`
  return report(this, {
    matcher: 'toHaveExecuted',
    timeline: { events },
    args: args === undefined ? 'command' : 'command, args',
    pass,
    expected: `Expected pi.exec of ${what}.`,
    notExpected: `Expected no pi.exec of ${what}.`,
    happened: () => (events.exec.length === 0 ? 'Nothing was executed.' : `Executed:\n${numbered(events.exec.map(describeExec))}`),
  })
}

export interface ExpectedFetch {
  method?: string
  /** Matched like expect.objectContaining, with header names in lower case. */
  headers?: Record<string, unknown>
  /** A substring, a RegExp, or an asymmetric matcher. */
  body?: unknown
}

export function toHaveFetched(this: MatcherState, received: unknown, url: TextMatcher, init?: ExpectedFetch): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveFetched')
  const fits = (call: HttpCallRecord) =>
    matchesText(this, call.url, url) &&
    (init?.method === undefined || call.method.toUpperCase() === init.method.toUpperCase()) &&
    (init?.headers === undefined || matchesValue(this, call.headers, lowerKeys(init.headers))) &&
    (init?.body === undefined || matchesText(this, call.body, init.body))
  const what = `${printExpectedLine(this, url)}${init === undefined ? '' : ` with ${printExpectedLine(this, init)}`}`
  return report(this, {
    matcher: 'toHaveFetched',
    timeline: { events },
    args: init === undefined ? 'url' : 'url, init',
    pass: events.http.some(fits),
    expected: `Expected a request to ${what}.`,
    notExpected: `Expected no request to ${what}.`,
    happened: () => (events.http.length === 0 ? 'Nothing was fetched.' : `Requests:\n${numbered(events.http.map(describeFetch))}`),
  })
}

function lowerKeys(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))
}

export function toHaveUsedAllMocks(this: MatcherState, received: unknown): MatcherOutcome {
  const t = received as { pendingMocks?: () => { line: string }[] } | null
  if (typeof t?.pendingMocks !== 'function') {
    throw new TypeError(`expect(received).toHaveUsedAllMocks(): received must be a test session (createTestSession), got ${describeValue(received)}`)
  }
  const pending = t.pendingMocks()
  const events = receivedOf(received)?.events
  return report(this, {
    matcher: 'toHaveUsedAllMocks',
    ...(events ? { timeline: { events } } : {}),
    args: '',
    pass: pending.length === 0,
    expected: 'Expected every mock rule with a `times` limit to be used that often.',
    notExpected: 'Expected some mock rule with a `times` limit to be left unused.',
    happened: () => (pending.length === 0 ? 'All were used.' : `Not used up:\n${numbered(pending.map((p) => p.line))}`),
  })
}
