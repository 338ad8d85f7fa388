// Turns what Pi does into records as it happens: every event, the conversation, tool calls with the
// decision of Pi's beforeToolCall hook, tool results, and model requests.
import { watchToolCallDecisions } from '../pi/index.js'
import type { ToolCallDecision } from '../pi/types.js'
import type { AgentSession, AgentSessionEvent, Context } from '../pi/types.js'
import { messageOf } from '../shared/errors.js'
import { originOf } from './handler-errors.js'
import { harnessMade } from './harness-made.js'
import { textOf, type ExtensionErrorRecord, type ModelRequestRecord, type SessionRecords, type ToolCallRecord, type ToolContent, type ToolResultRecord } from './records.js'
import { messagesOf, RequestLog, type RequestMessages } from './request-log.js'

type Decision = { blocked: boolean; reason?: string; byError?: true }
type Asker = Pick<ModelRequestRecord, 'by' | 'extensionPath'>

export class Recorder {
  readonly #stepOfCall = new Map<string, number>()
  readonly #mocked = new Set<string>()
  readonly #ran = new Set<string>()
  readonly #calls = new Map<string, ToolCallRecord>()
  readonly #decisions = new Map<string, Decision>()
  readonly #requests = new RequestLog()

  /** `onExtensionError`: told about every handler crash, after it is recorded. */
  constructor(
    readonly records: SessionRecords,
    private readonly onExtensionError: (error: ExtensionErrorRecord) => void = () => {},
  ) {}

  /** An extension's handler threw. */
  extensionError(error: ExtensionErrorRecord): void {
    this.records.extensionErrors.push(error)
    this.onExtensionError(error)
  }

  /** The playbook step whose model message asked for the call; 0 when the call did not come from the playbook. */
  stepOf(toolCallId: string): number {
    return this.#stepOfCall.get(toolCallId) ?? 0
  }

  callAsked(toolCallId: string, step: number): void {
    this.#stepOfCall.set(toolCallId, step)
  }

  /** The call's `execute` (or its mock) began: Pi did not refuse it. */
  callRan(toolCallId: string): void {
    this.#ran.add(toolCallId)
  }

  ran(toolCallId: string): boolean {
    return this.#ran.has(toolCallId)
  }

  /** A mock answered the call instead of the tool's own `execute`. */
  callMocked(toolCallId: string): void {
    this.#mocked.add(toolCallId)
  }

  /** `unchanged`: nothing rewrites earlier messages between requests (no `context` handler), so they are shared. */
  modelRequest(step: number, context: Context, unchanged: boolean, asker: Asker = { by: 'agent' }, payload?: Record<string, unknown>): void {
    const chunk = this.#requests.record(context.messages, unchanged)
    const record = requestRecord(step, context.systemPrompt ?? '', chunk, (context.tools ?? []).map((tool) => tool.name), asker)
    this.records.modelRequests.push(payload === undefined ? record : Object.assign(record, { payload }))
  }

  resultRecord(toolCallId: string, toolName: string, content: ToolContent, isError: boolean, details: unknown): ToolResultRecord {
    return { step: this.stepOf(toolCallId), toolCallId, toolName, text: textOf(content), content, isError, details, mocked: this.#mocked.has(toolCallId) }
  }

  /** The record of a call Pi started (blocked or not). */
  callRecord(toolCallId: string): ToolCallRecord | undefined {
    return this.#calls.get(toolCallId)
  }

  /** Records everything `session` emits from now on. */
  attach(session: AgentSession): void {
    watchToolCallDecisions(session, (decision) => this.decided(decision))
    session.subscribe((event) => this.event(event))
  }

  /** The decision of Pi's `tool_call` hook on a call: blocked or not, and why. */
  decided({ toolCallId, blocked, reason, error }: ToolCallDecision): void {
    const decision: Decision = blocked ? { blocked, reason: reason!, ...(error === undefined ? {} : { byError: true as const }) } : { blocked }
    if (error !== undefined) this.#handlerCrashed(error)
    this.#decisions.set(toolCallId, decision)
    const call = this.#calls.get(toolCallId)
    if (call) applyDecision(call, decision)
  }

  /** An event of the session, as Pi emitted it. */
  event(event: AgentSessionEvent): void {
    this.records.all.push(event)
    // The conversation; 1.x also ends `system` messages (prompt and tool changes), which requests record.
    if (event.type === 'message_end') {
      if ((event.message as { role: string }).role !== 'system') this.records.messages.push(event.message)
    } else if (event.type === 'tool_execution_start') {
      this.#callStarted(event.toolCallId, event.toolName, event.args as Record<string, unknown>)
    } else if (event.type === 'tool_execution_end') {
      const result = event.result as { content: ToolContent; details: unknown }
      this.records.toolResults.push(this.resultRecord(event.toolCallId, event.toolName, result.content ?? [], event.isError, result.details))
    }
  }

  // Pi blocks the call and says nothing else: the crash is recorded as the extension error it is.
  #handlerCrashed(error: unknown): void {
    const origin = originOf(error) ?? { extensionPath: '(unknown extension)', event: 'tool_call' }
    this.extensionError({ ...origin, error: messageOf(error), ...(error instanceof Error && error.stack ? { stack: error.stack } : {}) })
  }

  #callStarted(toolCallId: string, toolName: string, input: Record<string, unknown>): void {
    const call: ToolCallRecord = { step: this.stepOf(toolCallId), toolCallId, toolName, input, blocked: false }
    const decision = this.#decisions.get(toolCallId)
    if (decision) applyDecision(call, decision)
    this.#calls.set(toolCallId, call)
    this.records.toolCalls.push(call)
  }
}

// Outside the class, so that the getter closes over the chunk alone and never over a request's full context.
function requestRecord(step: number, systemPrompt: string, chunk: RequestMessages, tools: string[], asker: Asker): ModelRequestRecord {
  return {
    step,
    ...asker,
    systemPrompt,
    get messages() {
      // Rebuilt on each read: marked, so that a snapshot of it normalises as the record's own does.
      return harnessMade(messagesOf(chunk))
    },
    tools,
  }
}

function applyDecision(call: ToolCallRecord, decision: Decision): void {
  call.blocked = decision.blocked
  if (decision.reason !== undefined) call.blockReason = decision.reason
  if (decision.byError) call.blockedByError = true
}
