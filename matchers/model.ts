// What the model said, and what it was sent.
import type { MatcherState } from 'vitest'
import { textOf } from '../src/records/records.js'
import { requireReceived } from './receiver.js'
import { report, type MatcherOutcome } from './report.js'
import { replies } from './timeline.js'
import { callLine, matchesText, numbered, printExpectedLine, printReceivedLine, type TextMatcher } from './text.js'

type MessageLike = { role: string; content?: unknown }

function messageText(message: MessageLike): string {
  const { content } = message
  if (typeof content === 'string') return content
  return Array.isArray(content) ? textOf(content) : ''
}

/** A message as one line: its text, or the tool calls it made. */
function describeMessage(state: MatcherState, message: MessageLike): string {
  const text = messageText(message)
  const toolCalls = Array.isArray(message.content)
    ? (message.content as { type: string; name?: string; arguments?: unknown }[]).filter((c) => c.type === 'toolCall')
    : []
  const parts = [...(text ? [printReceivedLine(state, text)] : []), ...toolCalls.map((c) => callLine(state, c.name ?? '?', c.arguments))]
  return `${message.role}: ${parts.join(' + ') || '(empty)'}`
}

export function toHaveSaid(this: MatcherState, received: unknown, text: TextMatcher): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveSaid')
  const said = events.messages.filter((m) => m.role === 'assistant').map((m) => messageText(m)).filter(Boolean)
  return report(this, {
    matcher: 'toHaveSaid',
    timeline: { events, focus: replies },
    args: 'text',
    pass: said.some((s) => matchesText(this, s, text)),
    expected: `Expected the model to say ${printExpectedLine(this, text)}.`,
    notExpected: `Expected the model not to say ${printExpectedLine(this, text)}.`,
    happened: () => (said.length === 0 ? 'The model said nothing.' : `The model said:\n${numbered(said.map((s) => printReceivedLine(this, s)))}`),
  })
}

export function toHaveSentToModel(this: MatcherState, received: unknown, text: TextMatcher): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveSentToModel')
  const requests = events.modelRequests
  const hit = requests.find(
    (r) => matchesText(this, r.systemPrompt, text) || r.messages.some((m) => matchesText(this, messageText(m as MessageLike), text)),
  )
  return report(this, {
    matcher: 'toHaveSentToModel',
    timeline: { events },
    args: 'text',
    pass: hit !== undefined,
    expected: `Expected some model request to contain ${printExpectedLine(this, text)}.`,
    notExpected: `Expected no model request to contain ${printExpectedLine(this, text)}.`,
    happened: () => {
      if (hit) return `Request ${requests.indexOf(hit) + 1} (step ${hit.step}) contained it.`
      if (requests.length === 0) return 'The model was never asked.'
      const last = requests.at(-1)!
      return `The model was asked ${requests.length} time(s). The last request's messages:\n${numbered(last.messages.map((m) => describeMessage(this, m as MessageLike)))}`
    },
  })
}
