// The scripted model's stream, as a provider sends it, built with the running Pi's own stream constructor:
// the bare side in process passes its line's, the bare `pi` process's provider the one Pi's loader gives it.
const NO_USAGE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }

/** A stream carrying `content` as a provider would send it: start, start/delta/end per block, done. */
export function scriptedStream(createAssistantMessageEventStream, model, content) {
  const message = {
    role: 'assistant',
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: NO_USAGE,
    stopReason: content.some((block) => block.type === 'toolCall') ? 'toolUse' : 'stop',
    timestamp: Date.now(),
  }
  const stream = createAssistantMessageEventStream()
  const partial = { ...message, content: [] }
  stream.push({ type: 'start', partial })
  content.forEach((block, contentIndex) => {
    partial.content.push(block)
    if (block.type === 'text') {
      stream.push({ type: 'text_start', contentIndex, partial })
      stream.push({ type: 'text_delta', contentIndex, delta: block.text, partial })
      stream.push({ type: 'text_end', contentIndex, content: block.text, partial })
    } else {
      stream.push({ type: 'toolcall_start', contentIndex, partial })
      stream.push({ type: 'toolcall_delta', contentIndex, delta: JSON.stringify(block.arguments), partial })
      stream.push({ type: 'toolcall_end', contentIndex, toolCall: block, partial })
    }
  })
  stream.push({ type: 'done', reason: message.stopReason, message })
  stream.end(message)
  return stream
}
