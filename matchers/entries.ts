// What the extension appended to the session: pi.appendEntry(customType, data).
import type { MatcherState } from 'vitest'
import { requireReceived } from './receiver.js'
import { report, type MatcherOutcome } from './report.js'
import { matchesValue, numbered, printExpectedLine, printReceivedLine } from './text.js'

/** `data` matches like expect.objectContaining when it is a plain object, else by equality (asymmetric matchers allowed). */
export function toHaveAppendedEntry(this: MatcherState, received: unknown, customType: string, ...data: [data?: unknown]): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveAppendedEntry')
  const entries = events.entries
  const pass = entries.some((e) => e.customType === customType && (data.length === 0 || matchesValue(this, e.data, data[0])))
  const what = `an entry ${printExpectedLine(this, customType)}${data.length === 0 ? '' : ` with data ${printExpectedLine(this, data[0])}`}`
  return report(this, {
    matcher: 'toHaveAppendedEntry',
    timeline: { events },
    args: data.length === 0 ? 'customType' : 'customType, data',
    pass,
    expected: `Expected pi.appendEntry of ${what}.`,
    notExpected: `Expected no pi.appendEntry of ${what}.`,
    happened: () =>
      entries.length === 0 ? 'No entry was appended.' : `Appended:\n${numbered(entries.map((e) => `${e.customType}: ${printReceivedLine(this, e.data)}`))}`,
  })
}
