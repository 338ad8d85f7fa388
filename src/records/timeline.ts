// The story of a session in the order it happened: each turn the test ran, what the model said, each tool
// call with its block or result, and each UI call (dialogs with their answers, notifications).
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
