// What the extension drew: the frames of its custom() components, and its widgets.
import type { MatcherState } from 'vitest'
import type { WidgetRecord } from '../src/records/records.js'
import { requireReceived } from './receiver.js'
import { report, type MatcherOutcome } from './report.js'
import { uiCalls } from './timeline.js'
import { equals, matchesText, numbered, printExpectedLine, printReceivedLine, type TextMatcher } from './text.js'

/** Every frame of every driven custom() component, as `custom #1 after "down": <lines>`. */
function framesOf(state: MatcherState, customs: { frames?: { after?: string; lines: string[] }[] }[]): string[] {
  return customs.flatMap((call, n) =>
    (call.frames ?? []).map((frame) => {
      const when = frame.after === undefined ? 'first frame' : `after ${frame.after}`
      return `custom #${n + 1}, ${when}:\n${frame.lines.map((line) => `       ${printReceivedLine(state, line)}`).join('\n')}`
    }),
  )
}

export function toHaveRendered(this: MatcherState, received: unknown, text: TextMatcher): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveRendered')
  const customs = events.uiCallsFor('custom')
  const frames = customs.flatMap((call) => call.frames ?? [])
  const pass = frames.some((frame) => frame.lines.some((line) => matchesText(this, line, text)))
  return report(this, {
    matcher: 'toHaveRendered',
    timeline: { events, focus: uiCalls('custom') },
    args: 'text',
    pass,
    expected: `Expected a line of a custom() component to match ${printExpectedLine(this, text)}.`,
    notExpected: `Expected no line of a custom() component to match ${printExpectedLine(this, text)}.`,
    happened: () => {
      if (customs.length === 0) return 'ctx.ui.custom() was never called.'
      if (frames.length === 0) return 'No custom() component was run: script mockUI.custom with { keys: [...] } to run it.'
      return `Frames:\n${numbered(framesOf(this, customs), 10)}`
    },
  })
}

const describeWidget = (state: MatcherState) => (w: WidgetRecord) =>
  `${w.key}: ${w.lines === undefined ? 'cleared' : printReceivedLine(state, w.lines)}${w.component ? ' (component)' : ''}`

/**
 * `toHaveSetWidget(key)` any content; `(key, undefined)` a cleared widget; `(key, lines)` an array equal to the
 * lines (asymmetric matchers allowed), or a string or RegExp that some line matches.
 */
export function toHaveSetWidget(this: MatcherState, received: unknown, key: string, ...lines: [lines?: unknown]): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveSetWidget')
  const widgets = events.widgets
  const expected = lines[0]
  const fitsLines = (w: WidgetRecord) => {
    if (lines.length === 0) return true
    if (expected === undefined) return w.lines === undefined
    if (typeof expected === 'string' || expected instanceof RegExp) return (w.lines ?? []).some((line) => matchesText(this, line, expected))
    return equals(this, w.lines, expected)
  }
  const content = lines.length === 0 ? '' : expected === undefined ? ' cleared (undefined)' : ` with ${printExpectedLine(this, expected)}`
  return report(this, {
    matcher: 'toHaveSetWidget',
    timeline: { events, focus: uiCalls('setWidget') },
    args: lines.length === 0 ? 'key' : 'key, lines',
    pass: widgets.some((w) => w.key === key && fitsLines(w)),
    expected: `Expected widget ${printExpectedLine(this, key)} set${content}.`,
    notExpected: `Expected no widget ${printExpectedLine(this, key)} set${content}.`,
    happened: () => (widgets.length === 0 ? 'No widget was set.' : `Widgets set:\n${numbered(widgets.map(describeWidget(this)))}`),
  })
}
