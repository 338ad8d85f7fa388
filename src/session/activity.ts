// What a session is doing right now, read from its records and its playbook: what a test that timed out
// was waiting for, and what dispose() could not stop, are named from it.
import type { Playbook } from '../model/playbook.js'
import type { HandlerOrigin } from '../records/handler-errors.js'
import type { SessionRecords } from '../records/records.js'
import { globalSlot } from '../shared/global-slot.js'

export class SessionActivity {
  /** What the test awaits on the session: `run(when("hang"))`, `command("review")`, `emit("input")`. */
  doing: string | undefined
  /** The turns an extension is to start (t.next) that the test awaits, each described. */
  readonly awaiting = new Map<object, string>()
  /** Extension handlers that were called and have not returned yet. */
  readonly handlers = new Set<HandlerOrigin>()
  /** The script, once the model is replaced. */
  playbook: Playbook | undefined

  constructor(private readonly records: SessionRecords) {}

  /** What started and has not ended: extension handlers, tool calls without a result, a model request. */
  unfinished(): string[] {
    const ended = new Set(this.records.toolResults.map((result) => result.toolCallId))
    const tools = this.records.toolCalls
      .filter((call) => !call.blocked && !ended.has(call.toolCallId))
      .map((call) => `tool "${call.toolName}" (toolCallId ${call.toolCallId}, playbook step ${call.step})`)
    const handlers = [...this.handlers].map(({ event, extensionPath }) => `the "${event}" handler of ${extensionPath}`)
    const asking = this.playbook?.asking
    const waiting = this.playbook?.waiting
    const model = [
      ...(asking === undefined ? [] : [`the model request for playbook step ${asking} (a calls(...).then callback)`]),
      ...(waiting === undefined ? [] : [`the model request for playbook step ${waiting}, held by its waitsFor(...)`]),
    ]
    return [...handlers, ...tools, ...model]
  }

  /** `run(when("hang")), turn 1 ("hang"), playbook step 1: tool "bash" (…) had not finished`; undefined when idle. */
  describe(): string | undefined {
    const doing = this.doing ?? ([...this.awaiting.values()].join(', ') || undefined)
    if (doing === undefined) return undefined
    const where = this.playbook?.position
    const unfinished = this.unfinished()
    // Awaiting a turn no extension has started: nothing of the session's runs.
    if (this.doing === undefined && where === undefined && unfinished.length === 0) return doing
    const what = unfinished.length > 0 ? `${unfinished.join(', ')} had not finished` : 'no tool, extension handler or model request was running (Pi itself was)'
    return `${doing}${where === undefined ? '' : `, ${where}`}: ${what}`
  }
}

// On globalThis: the environment may hold another instance of this module than the one that made the session.
const activities = globalSlot('session-activity', () => new WeakMap<object, SessionActivity>())

export function trackActivity(session: object, activity: SessionActivity): void {
  activities.get().set(session, activity)
}

/** What `session` (a TestSession) is running now, or undefined when the test is not waiting for it. */
export function describeRunning(session: object): string | undefined {
  return activities.get().get(session)?.describe()
}
