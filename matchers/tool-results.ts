// What a tool returned: text, error flag, details.
import type { MatcherState } from 'vitest'
import type { ToolResultRecord } from '../src/records/records.js'
import { requireReceived } from './receiver.js'
import { report, type MatcherOutcome } from './report.js'
import { callsOf } from './timeline.js'
import { allCalls } from './tool-calls.js'
import { matchesText, matchesValue, numbered, printExpectedLine, printReceivedLine } from './text.js'

export interface ExpectedToolResult {
  /** A substring, a RegExp, or an asymmetric matcher. */
  text?: unknown
  isError?: boolean
  /** Matched like expect.objectContaining when it is a plain object. */
  details?: unknown
}

/** `.map(describeResult(this))`: a result as one line, its details after it. */
const describeResult = (state: MatcherState) => (r: ToolResultRecord) =>
  `${r.isError ? 'error' : 'ok'}${r.mocked ? ' (mocked)' : ''}: ${printReceivedLine(state, r.text)}${r.details === undefined ? '' : ` details ${printReceivedLine(state, r.details)}`}`

export function toHaveToolResult(this: MatcherState, received: unknown, name: string, expected: ExpectedToolResult): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveToolResult')
  const results = events.toolResultsFor(name)
  const fits = (r: ToolResultRecord) =>
    (!('text' in expected) || matchesText(this, r.text, expected.text)) &&
    (expected.isError === undefined || r.isError === expected.isError) &&
    (!('details' in expected) || matchesValue(this, r.details, expected.details))
  const matching = results.filter(fits)
  return report(this, {
    matcher: 'toHaveToolResult',
    timeline: { events, focus: callsOf(name) },
    args: 'name, { text, isError, details }',
    pass: matching.length > 0,
    expected: `Expected a result of ${name} matching ${printExpectedLine(this, expected)}.`,
    notExpected: `Expected no result of ${name} matching ${printExpectedLine(this, expected)}.`,
    happened: () =>
      results.length === 0
        ? `${name} returned no result. ${allCalls(this, events)}`
        : `${name} returned:\n${numbered((matching.length > 0 ? matching : results).map(describeResult(this)))}`,
  })
}
