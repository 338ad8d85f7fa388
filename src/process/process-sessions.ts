// Which sessions run their Pi in a child: asked where an in-process session's AgentSession would be read (the
// attachments), without loading the process depth itself.
import { globalSlot } from '../shared/global-slot.js'

// On globalThis: the environment may hold another instance of this module than the one that made the session.
const processSessions = globalSlot('process-sessions', () => new WeakSet<object>())

export function markProcessSession(t: object): void {
  processSessions.get().add(t)
}

/** Whether `t` is a process session, whose Pi runs in a child (no AgentSession here to save or export). */
export function isProcessSession(t: object): boolean {
  return processSessions.get().has(t)
}
