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
 * Holding these instead of the messages lets Pi's copy of the transcript die with its request (held until
 * the next one, each copy outlived a young-generation collection), and a request that repeats the previous
 * one extends the fingerprint instead of making one as long as the transcript. Together they took the
 * collection time the harness adds to a 1000-call turn from about 100 ms to 25.
 */
interface Fingerprint {
  readonly roles: string[]
  readonly timestamps: number[]
}

function extend(fingerprint: Fingerprint, sent: readonly Message[], from: number): Fingerprint {
  for (let i = from; i < sent.length; i++) {
    fingerprint.roles.push(sent[i]!.role)
    fingerprint.timestamps.push(sent[i]!.timestamp)
  }
  return fingerprint
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
    if (unchanged && last && startsWith(sent, last.fingerprint)) {
      const known = last.fingerprint.roles.length
      const chunk = { base: last.chunk, tail: sent.slice(known) }
      this.last = { fingerprint: extend(last.fingerprint, sent, known), chunk }
      return chunk
    }
    const chunk = { base: undefined, tail: sent }
    this.last = { fingerprint: extend({ roles: [], timestamps: [] }, sent, 0), chunk }
    return chunk
  }
}
