// The one shape of every failure message: a hint saying what was checked, what happened instead, and the
// timeline of the session the matcher read.
import type { MatcherState } from 'vitest'
import type { SessionRecords } from '../src/records/records.js'
import { timeline, type Focus } from './timeline.js'

/**
 * What a matcher returns: Vitest's SyncExpectationResult, which 'vitest' does not export by name. Declared
 * here so that the published declarations name no '@vitest/expect', which a strict install does not link.
 */
export interface MatcherOutcome {
  pass: boolean
  message: () => string
  actual?: unknown
  expected?: unknown
}

export interface Report {
  matcher: string
  /** What the hint calls the received value; 'session' unless said. */
  received?: string
  /** The matcher's arguments as shown in the hint, e.g. 'name, params'. */
  args: string
  pass: boolean
  /** What was expected, in words, for the positive and the negated form. */
  expected: string
  notExpected: string
  /** What the records show instead. */
  happened: () => string
  /** The session's records, whose timeline ends the message; `focus` marks what the matcher looked for. */
  timeline?: { events: SessionRecords; focus?: Focus }
  /** The message's last line, just above the diff Vitest prints after it. */
  diffHeading?: string
  actual?: unknown
  expectedValue?: unknown
}

export function report(state: MatcherState, r: Report): MatcherOutcome {
  const { utils, isNot, promise } = state
  const message = () => {
    const story = r.timeline && timeline(state, r.timeline.events, r.timeline.focus)
    return [
      utils.matcherHint(`.${r.matcher}`, r.received ?? 'session', r.args, { isNot, promise }),
      '',
      isNot ? r.notExpected : r.expected,
      '',
      r.happened(),
      ...(story === undefined ? [] : ['', story]),
      ...(r.diffHeading === undefined ? [] : ['', r.diffHeading]),
    ].join('\n')
  }
  return {
    pass: r.pass,
    message,
    ...(r.actual === undefined && r.expectedValue === undefined ? {} : { actual: r.actual, expected: r.expectedValue }),
  }
}
