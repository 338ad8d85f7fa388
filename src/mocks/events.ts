// The spec's events block: events fired through Pi's runner at start, each result checked against the expected one.
import { AssertionError, deepStrictEqual } from 'node:assert'
import { messageOf } from '../shared/errors.js'
import type { EventFire } from './spec/types.js'

export interface FiredEvent {
  event: string
  payload: Record<string, unknown>
  result: unknown
}

/** Fires the spec's events in order; a result that differs from expected_response fails with a diff. */
export async function fireSequence(events: EventFire[], emit: (event: string, payload: Record<string, unknown>) => Promise<unknown>): Promise<FiredEvent[]> {
  const fired: FiredEvent[] = []
  for (const [index, { event, payload = {}, expected_response }] of events.entries()) {
    const result = await emit(event, payload)
    fired.push({ event, payload, result })
    if (expected_response === undefined) continue
    try {
      deepStrictEqual(result ?? undefined, expected_response)
    } catch (error) {
      const diff = error instanceof AssertionError ? error.message : messageOf(error)
      throw new Error(`events.fire_sequence[${index}] (${event}): the handlers returned a different result than expected_response\n${diff}`)
    }
  }
  return fired
}
