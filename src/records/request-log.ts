// Pi re-sends, and re-copies, the whole transcript on every model request: keeping every copy would
// grow memory with the square of the calls. A request's record shares the previous request's messages
// when Pi sent those unchanged, and keeps only what is new.
import type { Message } from '../pi/types.js'

/** The messages of one request: its own new ones after those of the request it shares a prefix with. */
export interface RequestMessages {
  readonly base: RequestMessages | undefined
  readonly tail: readonly Message[]
}

export function messagesOf(chunk: RequestMessages): Message[] {
  const tails: (readonly Message[])[] = []
  for (let at: RequestMessages | undefined = chunk; at; at = at.base) tails.push(at.tail)
  return tails.reverse().flat()
}

/** Same roles and timestamps, in order: the same messages, when nothing rewrites them between requests. */
function startsWith(sent: readonly Message[], prefix: readonly Message[]): boolean {
  if (sent.length < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) {
    if (prefix[i]!.role !== sent[i]!.role || prefix[i]!.timestamp !== sent[i]!.timestamp) return false
  }
  return true
}

export class RequestLog {
  // Only the previous request's full list is held, to compare the next one with.
  private last: { sent: readonly Message[]; chunk: RequestMessages } | undefined

  /** `unchanged`: nothing rewrites earlier messages between requests (no `context` handler). */
  record(sent: readonly Message[], unchanged: boolean): RequestMessages {
    const last = this.last
    const chunk: RequestMessages =
      unchanged && last && startsWith(sent, last.sent)
        ? { base: last.chunk, tail: sent.slice(last.sent.length) }
        : { base: undefined, tail: sent }
    this.last = { sent, chunk }
    return chunk
  }
}
