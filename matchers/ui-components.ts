// What the extension drew: the frames of its custom() components, its message and tool renderers, and its widgets.
import type { MatcherState } from 'vitest'
import type { RenderRecord, WidgetRecord } from '../src/records/records.js'
import { describeValue } from './receiver.js'
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

/** Which drawings `toHaveRendered` reads: a message's or entry's customType or a tool's name, collapsed or expanded, partial or final. */
export interface RenderedOptions {
  /** Custom messages of this customType, as its message renderer draws them. */
  message?: string
  /** Calls of this tool, as Pi draws them: its renderCall/renderResult, a `registerToolRenderer` resolver's, or Pi's built-in ones. */
  tool?: string
  /** Custom entries (`pi.appendEntry`) of this customType, as its entry renderer draws them (Pi 1.x). */
  entry?: string
  /** `true`: as Pi shows them expanded (Ctrl+O); `false`: as Pi shows them first; unset: either. */
  expanded?: boolean
  /** `true`: a tool's partial results only (what `onUpdate` sent); `false`: final drawings only; unset: either. */
  partial?: boolean
}

const RENDERED_OPTIONS = ['message', 'tool', 'entry', 'expanded', 'partial']
const KINDS = ['message', 'tool', 'entry'] as const

function checkRenderedOptions(options: unknown): RenderedOptions {
  if (options === undefined) return {}
  const fail = (problem: string) => new TypeError(`toHaveRendered(text, options): ${problem}`)
  if (typeof options !== 'object' || options === null) throw fail(`options must be an object ({ message | tool | entry, expanded, partial }), got ${describeValue(options)}`)
  const unknown = Object.keys(options).filter((key) => !RENDERED_OPTIONS.includes(key))
  if (unknown.length > 0) throw fail(`unknown option ${unknown.join(', ')}; the options are ${RENDERED_OPTIONS.join(', ')}`)
  const given = options as Record<string, unknown>
  const named = KINDS.filter((kind) => given[kind] !== undefined)
  if (named.length > 1) throw fail(`give one of message, tool or entry, not ${named.join(' and ')}`)
  for (const kind of named) {
    if (typeof given[kind] !== 'string') throw fail(`${kind} must be a ${kind === 'tool' ? 'tool name' : 'customType'} (a string), got ${describeValue(given[kind])}`)
  }
  for (const flag of ['expanded', 'partial']) {
    if (given[flag] !== undefined && typeof given[flag] !== 'boolean') throw fail(`${flag} must be true or false, got ${describeValue(given[flag])}`)
  }
  return options as RenderedOptions
}

const drawingName = (r: RenderRecord) => `${r.kind} "${r.name}"`

/** The lines of a drawing `options` ask for: collapsed, expanded, or both. */
function drawnLines(r: RenderRecord, expanded: boolean | undefined): string[] {
  return expanded === undefined ? [...r.lines, ...r.expandedLines] : expanded ? r.expandedLines : r.lines
}

const NOTHING_OF_KIND = {
  message: 'no displayed custom message of that customType with a message renderer',
  tool: 'no call of that tool, or Pi draws it with no renderer (a tool without renderCall/renderResult of its own, or a resolver\'s, and not built in)',
  entry: 'no custom entry of that customType with an entry renderer (Pi 1.x draws them; 0.73 has none)',
}

/**
 * A line some custom() component showed, or some message, tool or entry renderer drew; narrowed by `options`
 * to the drawings of one message customType, tool or entry customType, collapsed or expanded, partial or final.
 */
export function toHaveRendered(this: MatcherState, received: unknown, text: TextMatcher, options?: RenderedOptions): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveRendered')
  const checked = checkRenderedOptions(options)
  const { expanded, partial } = checked
  const kind = KINDS.find((k) => checked[k] !== undefined)
  const name = kind && checked[kind]
  const narrowed = kind !== undefined || expanded !== undefined || partial !== undefined
  const customs = narrowed ? [] : events.uiCallsFor('custom')
  const frames = customs.flatMap((call) => call.frames ?? [])
  const drawings = events.renders.filter((r) => (kind === undefined || (r.kind === kind && r.name === name)) && (partial === undefined || partial === (r.partial === true)))
  const matches = (line: string) => matchesText(this, line, text)
  const pass = frames.some((frame) => frame.lines.some(matches)) || drawings.some((r) => drawnLines(r, expanded).some(matches))
  const what =
    kind !== undefined ? `${kind} "${name}"` : narrowed ? 'a renderer' : drawings.length === 0 ? 'a custom() component' : 'a custom() component or a renderer'
  const state = [expanded === undefined ? '' : expanded ? 'expanded' : 'collapsed', partial === undefined ? '' : partial ? 'partial' : 'final'].filter(Boolean).join(', ')
  const shownAs = state === '' ? '' : ` (${state})`
  return report(this, {
    matcher: 'toHaveRendered',
    timeline: { events, focus: uiCalls('custom') },
    args: options === undefined ? 'text' : 'text, options',
    pass,
    expected: `Expected a line of ${what}${shownAs} to match ${printExpectedLine(this, text)}.`,
    notExpected: `Expected no line of ${what}${shownAs} to match ${printExpectedLine(this, text)}.`,
    happened: () => {
      const shown = [
        ...framesOf(this, customs),
        ...drawings.flatMap((r) =>
          (expanded === undefined ? [false, true] : [expanded]).map(
            (open) => `${drawingName(r)}${r.partial ? ' (partial result)' : ''}, ${open ? 'expanded' : 'collapsed'}:\n${(open ? r.expandedLines : r.lines).map((line) => `       ${printReceivedLine(this, line)}`).join('\n')}`,
          ),
        ),
      ]
      if (shown.length > 0) return `${drawings.length === 0 ? 'Frames' : 'Drawn'}:\n${numbered(shown, 10)}`
      const drawn = [...new Set(events.renders.map(drawingName))]
      if (kind !== undefined) {
        const others = drawn.length > 0 ? ` Drawn: ${drawn.join(', ')}.` : ''
        return `Nothing was drawn for ${what}${shownAs}: ${NOTHING_OF_KIND[kind]}.${others}`
      }
      if (narrowed) return 'No renderer drew anything.'
      if (customs.length === 0) return 'ctx.ui.custom() was never called, and no renderer drew anything.'
      return 'No custom() component was run: script mockUI.custom with { keys: [...] } to run it.'
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
