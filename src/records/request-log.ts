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

/**
 * What identifies a request's messages for the next comparison: their roles and timestamps, in order.
 * Holding these instead of the messages lets Pi's copy of the transcript die with its request: held until
 * the next one, each copy outlived a young-generation collection, about a quarter of the collection time
 * the harness added to a 1000-call turn.
 */
interface Fingerprint {
  readonly roles: readonly string[]
  readonly timestamps: Float64Array
}

function fingerprintOf(sent: readonly Message[]): Fingerprint {
  const roles = new Array<string>(sent.length)
  const timestamps = new Float64Array(sent.length)
  for (let i = 0; i < sent.length; i++) {
    roles[i] = sent[i]!.role
    timestamps[i] = sent[i]!.timestamp
  }
  return { roles, timestamps }
}

/** Same roles and timestamps, in order: the same messages, when nothing rewrites them between requests. */
function startsWith(sent: readonly Message[], { roles, timestamps }: Fingerprint): boolean {
  if (sent.length < roles.length) return false
  for (let i = 0; i < roles.length; i++) {
    if (roles[i] !== sent[i]!.role || timestamps[i] !== sent[i]!.timestamp) return false
  }
  return true
}

export class RequestLog {
  private last: { fingerprint: Fingerprint; chunk: RequestMessages } | undefined

  /** `unchanged`: nothing rewrites earlier messages between requests (no `context` handler). */
  record(sent: readonly Message[], unchanged: boolean): RequestMessages {
    const last = this.last
    const chunk: RequestMessages =
      unchanged && last && startsWith(sent, last.fingerprint)
        ? { base: last.chunk, tail: sent.slice(last.fingerprint.roles.length) }
        : { base: undefined, tail: sent }
    this.last = { fingerprint: fingerprintOf(sent), chunk }
    return chunk
  }
}
