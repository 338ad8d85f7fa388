// The end of every failure message about a session: its timeline, bounded to a screen. When it is longer,
// the lines around what the matcher looked for are shown (marked ›) and the rest is counted.
import type { MatcherState } from 'vitest'
import type { SessionRecords, ToolCallRecord } from '../src/records/records.js'
import { timelineText, type TimelineItem } from '../src/records/timeline.js'
import { printReceivedLine } from './text.js'

/** What a matcher looked for: the items its failure is about. */
export type Focus = (item: TimelineItem) => boolean

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
  return timelineText(events, (value) => printReceivedLine(state, value), focus)
}
