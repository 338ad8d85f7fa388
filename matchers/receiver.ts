// What a matcher receives: a test session, or its records.
import type { AgentSession } from '../src/pi/types.js'
import type { SessionRecords } from '../src/records/records.js'
import type { TestSession } from '../src/session/create.js'

export interface Received {
  events: SessionRecords
  session?: AgentSession
}

// Duck-typed: the package may be loaded twice (dist and src), so instanceof would lie.
const isRecords = (value: unknown): value is SessionRecords =>
  typeof value === 'object' && value !== null && Array.isArray((value as SessionRecords).toolCalls) && Array.isArray((value as SessionRecords).ui)

export function receivedOf(value: unknown): Received | undefined {
  if (isRecords(value)) return { events: value }
  const t = value as Partial<TestSession> | null
  if (typeof t === 'object' && t !== null && isRecords(t.events)) {
    const session = sessionOf(t)
    return { events: t.events, ...(session ? { session } : {}) }
  }
  return undefined
}

// A process session (createTestSession({ process: true })) has no AgentSession here: its getter throws why.
function sessionOf(t: Partial<TestSession>): AgentSession | undefined {
  try {
    return t.session
  } catch {
    return undefined
  }
}

export class InvalidReceiverError extends TypeError {}

export function requireReceived(value: unknown, matcher: string, needsSession = false): Received {
  const received = receivedOf(value)
  if (received && needsSession && !received.session && value !== received.events) {
    throw new InvalidReceiverError(`expect(received).${matcher}(): received is a process session (createTestSession({ process: true })), whose Pi runs in a child; ${matcher} needs an in-process session`)
  }
  if (!received || (needsSession && !received.session)) {
    const what = needsSession ? 'a test session (createTestSession)' : 'a test session or its events'
    throw new InvalidReceiverError(`expect(received).${matcher}(): received must be ${what}, got ${describeValue(value)}`)
  }
  return received
}

/** A short description of an unexpected received value, for error messages. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value)
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? `an object with keys ${Object.keys(value).slice(0, 5).join(', ') || '(none)'}` : `a ${typeof value}`
}
