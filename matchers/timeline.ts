// The end of every failure message about a session: its timeline, bounded to a screen. When it is longer,
// the lines around what the matcher looked for are shown (marked ›) and the rest is counted.
import type { MatcherState } from 'vitest'
import type { SessionRecords, ToolCallRecord } from '../src/records/records.js'
import { timelineOf, type TimelineItem } from '../src/records/timeline.js'
import { callLine, describeUI, printReceivedLine } from './text.js'

/** What a matcher looked for: the items its failure is about. */
export type Focus = (item: TimelineItem) => boolean

/** The most timeline lines a message shows, besides the counts of the others. */
export const TIMELINE_LINES = 12

// A prompt or a reply is shown by its beginning: the timeline is an outline, the records hold the rest.
const TEXT_CHARS = 60

export const callsOf =
  (...names: string[]): Focus =>
  (item) =>
    item.kind === 'tool' && names.includes(item.call.toolName)
/** These very calls (those that matched, for a failing `.not`). */
export const theseCalls =
  (calls: readonly ToolCallRecord[]): Focus =>
  (item) =>
    item.kind === 'tool' && calls.includes(item.call)
export const uiCalls =
  (...methods: string[]): Focus =>
  (item) =>
    item.kind === 'ui' && methods.includes(item.call.method)
export const replies: Focus = (item) => item.kind === 'said'

/** `Session timeline:` and its lines, or undefined for a session where nothing happened yet. */
export function timeline(state: MatcherState, events: SessionRecords, focus?: Focus): string | undefined {
  const items = timelineOf(events)
  if (items.length === 0) return undefined
  const lines = items.map((item) => `${focus?.(item) ? '›' : ' '} ${item.kind === 'turn' ? '' : '  '}${itemLine(state, item)}`)
  return ['Session timeline:', ...bounded(lines, focus ? items.findIndex(focus) : -1)].join('\n')
}

function itemLine(state: MatcherState, item: TimelineItem): string {
  switch (item.kind) {
    case 'turn':
      return `turn ${item.turn}: ${printReceivedLine(state, cut(item.prompt))}`
    case 'said':
      return `said ${printReceivedLine(state, cut(item.text))}`
    case 'ui':
      return describeUI(state)(item.call)
    case 'tool': {
      const { call, result } = item
      if (call.blocked) return callLine(state, call.toolName, call.input, ` → blocked: ${printReceivedLine(state, cut(call.blockReason ?? ''))}`)
      const outcome = result ? `${result.isError ? 'error ' : ''}${printReceivedLine(state, cut(result.text))}` : '(no result)'
      return callLine(state, call.toolName, call.input, ` → ${outcome}`)
    }
  }
}

const cut = (text: string) => (text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS - 1)}…` : text)

/** At most TIMELINE_LINES lines: around the first focused one, else the end of the story. */
function bounded(lines: string[], focused: number): string[] {
  if (lines.length <= TIMELINE_LINES) return lines
  const center = focused >= 0 ? focused : lines.length - 1
  const start = Math.max(0, Math.min(center - Math.floor(TIMELINE_LINES / 2), lines.length - TIMELINE_LINES))
  const end = start + TIMELINE_LINES
  const earlier = start > 0 ? [`  … ${start} earlier line(s)`] : []
  const later = end < lines.length ? [`  … ${lines.length - end} later line(s)`] : []
  return [...earlier, ...lines.slice(start, end), ...later]
}
