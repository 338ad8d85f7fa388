// Streams an assistant message the way a provider does: start, deltas per block, then done or error,
// so `message_update` handlers run as they do against a real model.
import type { AssistantMessage, AssistantMessageEventStream as Stream, Model } from '../pi/types.js'

type Block = AssistantMessage['content'][number]

const NO_USAGE = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
}

export function assistantMessage(
  model: Model<string>,
  content: Block[],
  stopReason: AssistantMessage['stopReason'],
  errorMessage?: string,
): AssistantMessage {
  return {
    role: 'assistant',
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: NO_USAGE,
    stopReason,
    ...(errorMessage === undefined ? {} : { errorMessage }),
    timestamp: Date.now(),
  }
}

export function writeMessage(stream: Stream, message: AssistantMessage): void {
  const partial: AssistantMessage = { ...message, content: [] }
  stream.push({ type: 'start', partial })
  message.content.forEach((block, contentIndex) => {
    partial.content.push(block)
    if (block.type === 'text') {
      stream.push({ type: 'text_start', contentIndex, partial })
      stream.push({ type: 'text_delta', contentIndex, delta: block.text, partial })
      stream.push({ type: 'text_end', contentIndex, content: block.text, partial })
    } else if (block.type === 'thinking') {
      stream.push({ type: 'thinking_start', contentIndex, partial })
      stream.push({ type: 'thinking_delta', contentIndex, delta: block.thinking, partial })
      stream.push({ type: 'thinking_end', contentIndex, content: block.thinking, partial })
    } else {
      stream.push({ type: 'toolcall_start', contentIndex, partial })
      stream.push({ type: 'toolcall_delta', contentIndex, delta: JSON.stringify(block.arguments), partial })
      stream.push({ type: 'toolcall_end', contentIndex, toolCall: block, partial })
    }
  })
  if (message.stopReason === 'error' || message.stopReason === 'aborted') {
    stream.push({ type: 'error', reason: message.stopReason, error: message })
  } else {
    stream.push({ type: 'done', reason: message.stopReason, message })
  }
  stream.end(message)
}
