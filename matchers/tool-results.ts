// What a tool returned: text, error flag, details.
import type { MatcherState } from 'vitest'
import type { ToolResultRecord } from '../src/records/records.js'
import { requireReceived } from './receiver.js'
import { report } from './report.js'
import { allCalls } from './tool-calls.js'
import { compact, matchesText, matchesValue, numbered } from './text.js'

export interface ExpectedToolResult {
  /** A substring, a RegExp, or an asymmetric matcher. */
  text?: unknown
  isError?: boolean
  /** Matched like expect.objectContaining when it is a plain object. */
  details?: unknown
}

const describeResult = (r: ToolResultRecord) =>
  `${r.isError ? 'error' : 'ok'}${r.mocked ? ' (mocked)' : ''}: ${compact(r.text)}${r.details === undefined ? '' : ` details ${compact(r.details)}`}`

export function toHaveToolResult(this: MatcherState, received: unknown, name: string, expected: ExpectedToolResult) {
  const { events } = requireReceived(received, 'toHaveToolResult')
  const results = events.toolResultsFor(name)
  const fits = (r: ToolResultRecord) =>
    (!('text' in expected) || matchesText(this, r.text, expected.text)) &&
    (expected.isError === undefined || r.isError === expected.isError) &&
    (!('details' in expected) || matchesValue(this, r.details, expected.details))
  const matching = results.filter(fits)
  return report(this, {
    matcher: 'toHaveToolResult',
    args: 'name, { text, isError, details }',
    pass: matching.length > 0,
    expected: `Expected a result of ${name} matching ${compact(expected)}.`,
    notExpected: `Expected no result of ${name} matching ${compact(expected)}.`,
    happened: () =>
      results.length === 0
        ? `${name} returned no result. ${allCalls(events)}`
        : `${name} returned:\n${numbered((matching.length > 0 ? matching : results).map(describeResult))}`,
  })
}
