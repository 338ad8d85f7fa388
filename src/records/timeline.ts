// The story of a session in the order it happened: each turn the test ran, what the model said, each tool
// call with its block or result, and each UI call (dialogs with their answers, notifications).
import { describeValue } from '../shared/errors.js'
import { textOf, type SessionRecords, type ToolCallRecord, type ToolResultRecord, type UICallRecord } from './records.js'

export type TimelineItem =
  | { kind: 'turn'; turn: number; prompt: string }
  | { kind: 'said'; text: string }
  /** A call, placed where it ended (after the dialogs its tool_call handlers opened); `result` once it had one. */
  | { kind: 'tool'; call: ToolCallRecord; result?: ToolResultRecord }
  | { kind: 'ui'; call: UICallRecord }

export function timelineOf(records: SessionRecords): TimelineItem[] {
  const items: TimelineItem[] = []
  const results = new Map(records.toolResults.map((result) => [result.toolCallId, result]))
  const ended = new Set<string>()
  const turns = records.turns()
  let nextTurn = 0
  let nextUI = 0
  // Turns begun and UI calls made before event `index` (all of them for Infinity).
  const before = (index: number) => {
    for (;;) {
      const turnAt = nextTurn < turns.length ? turns[nextTurn]!.eventsBefore : Infinity
      const uiAt = nextUI < records.ui.length ? records.eventsBefore(records.ui[nextUI]!) : Infinity
      if (Math.min(turnAt, uiAt) > index || Math.min(turnAt, uiAt) === Infinity) return
      // A turn goes before what happened at the same moment: its dialogs came from it.
      if (turnAt <= uiAt) items.push({ kind: 'turn', turn: nextTurn + 1, prompt: turns[nextTurn++]!.prompt })
      else items.push({ kind: 'ui', call: records.ui[nextUI++]! })
    }
  }
  records.all.forEach((event, index) => {
    before(index)
    if (event.type === 'message_end') {
      const message = event.message as { role: string; content?: unknown }
      const said = message.role === 'assistant' ? contentText(message.content) : ''
      if (said !== '') items.push({ kind: 'said', text: said })
    } else if (event.type === 'tool_execution_end') {
      const call = records.toolCalls.find((c) => c.toolCallId === event.toolCallId)
      if (call) items.push(toolItem(call, results.get(call.toolCallId)))
      ended.add(event.toolCallId)
    }
  })
  before(Infinity)
  // Calls that never ended (the run was stopped while they ran) close the story.
  for (const call of records.toolCalls) if (!ended.has(call.toolCallId)) items.push(toolItem(call, results.get(call.toolCallId)))
  return items
}

const toolItem = (call: ToolCallRecord, result: ToolResultRecord | undefined): TimelineItem => ({ kind: 'tool', call, ...(result ? { result } : {}) })

// An assistant message's content: text, thinking and tool call blocks.
const contentText = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? textOf(content as { type: string }[]) : ''

/** Writes a value on one line (a matcher prints it as Vitest does, in colour; the harness as plain text). */
export type LinePrinter = (value: unknown) => string

/** A value on one line as plain text (JSON where it can be), cut to 200 characters: the harness's own messages. */
export const plainLine: LinePrinter = (value) => {
  const text = describeValue(value).replace(/\r?\n/g, '\\n')
  return text.length > 200 ? `${text.slice(0, 197)}...` : text
}

/** The most timeline lines a message shows, besides the counts of the others. */
export const TIMELINE_LINES = 12

// A prompt or a reply is shown by its beginning: the timeline is an outline, the records hold the rest.
const TEXT_CHARS = 60

/**
 * `Session timeline:` and at most TIMELINE_LINES of its lines (around the first item `focus` marks with ›,
 * else the end of the story), or undefined for a session where nothing happened yet.
 */
export function timelineText(records: SessionRecords, print: LinePrinter, focus?: (item: TimelineItem) => boolean): string | undefined {
  const items = timelineOf(records)
  if (items.length === 0) return undefined
  const lines = items.map((item) => `${focus?.(item) ? '›' : ' '} ${item.kind === 'turn' ? '' : '  '}${itemLine(item, print)}`)
  return ['Session timeline:', ...bounded(lines, focus ? items.findIndex(focus) : -1)].join('\n')
}

/** A UI call as one line, with a dialog's answer. */
export function uiCallLine(call: UICallRecord, print: LinePrinter): string {
  const answer = 'returnValue' in call ? ` → ${print(call.returnValue)}` : ''
  const args = [...call.args, ...(call.options ? [call.options] : [])]
  // A default of the mock spec's ui block answered, not the test's script: easy to mistake for the user's choice.
  return `${call.method}(${args.map(print).join(', ')})${answer}${call.defaulted ? ' (mocks.ui default)' : ''}`
}

function itemLine(item: TimelineItem, print: LinePrinter): string {
  switch (item.kind) {
    case 'turn':
      return `turn ${item.turn}: ${print(cut(item.prompt))}`
    case 'said':
      return `said ${print(cut(item.text))}`
    case 'ui':
      return uiCallLine(item.call, print)
    case 'tool': {
      const { call, result } = item
      if (call.blocked) return `${call.toolName}(${print(call.input)}) → blocked: ${print(cut(call.blockReason ?? ''))}`
      const outcome = result ? `${result.isError ? 'error ' : ''}${print(cut(result.text))}` : '(no result)'
      return `${call.toolName}(${print(call.input)}) → ${outcome}`
    }
  }
}

const cut = (text: string) => (text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS - 1)}…` : text)

function bounded(lines: string[], focused: number): string[] {
  if (lines.length <= TIMELINE_LINES) return lines
  const center = focused >= 0 ? focused : lines.length - 1
  const start = Math.max(0, Math.min(center - Math.floor(TIMELINE_LINES / 2), lines.length - TIMELINE_LINES))
  const end = start + TIMELINE_LINES
  const earlier = start > 0 ? [`  … ${start} earlier line(s)`] : []
  const later = end < lines.length ? [`  … ${lines.length - end} later line(s)`] : []
  return [...earlier, ...lines.slice(start, end), ...later]
}
