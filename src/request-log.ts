// Pi re-sends, and re-copies, the whole transcript on every model request: keeping every copy would
// grow memory with the square of the calls. A request's record shares the previous request's messages
// when Pi sent those unchanged, and keeps only what is new.
import type { Message } from './pi/index.js'

interface Chunk {
  base: Chunk | undefined
  tail: readonly Message[]
}

function messagesOf(chunk: Chunk): Message[] {
  const tails: (readonly Message[])[] = []
  for (let at: Chunk | undefined = chunk; at; at = at.base) tails.push(at.tail)
  return tails.reverse().flat()
}

export class RequestLog {
  private last: { sent: readonly Message[]; chunk: Chunk } | undefined

  /**
   * Remembers the messages of one request and returns how to read them back. `unchanged` says that
   * nothing rewrites earlier messages between requests (no `context` handler), so that a prefix with
   * the same roles and timestamps is the same prefix.
   */
  record(sent: readonly Message[], unchanged: boolean): () => Message[] {
    const last = this.last
    const shares =
      unchanged &&
      last !== undefined &&
      sent.length >= last.sent.length &&
      last.sent.every((message, i) => message.role === sent[i]!.role && message.timestamp === sent[i]!.timestamp)
    const chunk: Chunk = shares ? { base: last!.chunk, tail: sent.slice(last!.sent.length) } : { base: undefined, tail: sent }
    this.last = { sent, chunk }
    return () => messagesOf(chunk)
  }
}
