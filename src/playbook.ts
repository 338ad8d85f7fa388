// The playbook replaces the model: each time Pi asks the model, the next scripted step answers.
import type { AssistantMessage, Context, Model, ToolResultMessage } from './pi/index.js'
import { createMessageStream } from './pi/index.js'
import { assistantMessage, writeMessage } from './model-stream.js'
import type { ToolResultRecord } from './records.js'

export type ToolParams = Record<string, unknown>

export interface ToolCallAction {
  readonly kind: 'call'
  readonly tool: string
  readonly params: ToolParams | (() => ToolParams)
  readonly onResult: ((result: ToolResultRecord) => void | Promise<void>) | undefined
  /** Runs `callback` with the call's result before the model is asked again. */
  then(callback: (result: ToolResultRecord) => void | Promise<void>): ToolCallAction
}

export interface SayAction {
  readonly kind: 'say'
  readonly text: string
}

export interface ThinkAction {
  readonly kind: 'think'
  readonly text: string
}

export interface ParallelAction {
  readonly kind: 'parallel'
  readonly calls: readonly ToolCallAction[]
}

export interface FailAction {
  readonly kind: 'fail'
  readonly message: string
}

export type Action = ToolCallAction | SayAction | ThinkAction | ParallelAction | FailAction

export interface Turn {
  readonly prompt: string
  readonly actions: readonly Action[]
}

/** One user prompt and what the model does in answer, in order. */
export function when(prompt: string, actions: readonly Action[] = []): Turn {
  if (typeof prompt !== 'string') throw new TypeError(`when(prompt, actions): prompt must be a string, got ${typeof prompt}`)
  if (!Array.isArray(actions)) throw new TypeError(`when(${JSON.stringify(prompt)}, actions): actions must be an array`)
  return { prompt, actions }
}

/** The model calls a tool; `params` may be a function, resolved when the model is asked (late binding). */
export function calls(tool: string, params: ToolParams | (() => ToolParams) = {}): ToolCallAction {
  return callAction(tool, params, undefined)
}

function callAction(
  tool: string,
  params: ToolParams | (() => ToolParams),
  onResult: ToolCallAction['onResult'],
): ToolCallAction {
  return {
    kind: 'call',
    tool,
    params,
    onResult,
    then(callback: (result: ToolResultRecord) => void, reject?: unknown) {
      // `await calls(...)` would call then(resolve, reject) and hang: say what to do instead.
      if (typeof reject === 'function') {
        ;(reject as (e: Error) => void)(new TypeError(`calls(${JSON.stringify(tool)}) is a playbook action, not a promise: pass it to when(prompt, [...])`))
        return this
      }
      return callAction(tool, params, callback)
    },
  }
}

/** The model answers with text; a message without tool calls ends Pi's turn. */
export function says(text: string): SayAction {
  return { kind: 'say', text }
}

/** A thinking block, sent in the same model message as the action that follows it. */
export function thinks(text: string): ThinkAction {
  return { kind: 'think', text }
}

/** Several tool calls in ONE model message; Pi runs them in parallel by default. */
export function parallel(...toolCalls: ToolCallAction[]): ParallelAction {
  if (toolCalls.length === 0) throw new TypeError('parallel(...calls) needs at least one calls(...) action')
  return { kind: 'parallel', calls: toolCalls }
}

/** The model request fails (stop reason `error`), as a provider error would. */
export function fails(message: string): FailAction {
  return { kind: 'fail', message }
}

export function describeAction(action: Action): string {
  switch (action.kind) {
    case 'call':
      return `calls(${JSON.stringify(action.tool)}, ${typeof action.params === 'function' ? '() => {...}' : JSON.stringify(action.params)})`
    case 'say':
      return `says(${JSON.stringify(action.text)})`
    case 'think':
      return `thinks(${JSON.stringify(action.text)})`
    case 'parallel':
      return `parallel(${action.calls.map(describeAction).join(', ')})`
    case 'fail':
      return `fails(${JSON.stringify(action.message)})`
  }
}

/** One model response: the actions that make it (a thinking block joins the action after it). */
interface Step {
  actions: Action[]
}

function stepsOf(actions: readonly Action[]): Step[] {
  const steps: Step[] = []
  let pending: Action[] = []
  for (const action of actions) {
    pending.push(action)
    if (action.kind !== 'think') {
      steps.push({ actions: pending })
      pending = []
    }
  }
  if (pending.length > 0) steps.push({ actions: pending })
  return steps
}

const describeStep = (step: Step) => step.actions.map(describeAction).join(' + ')

export interface PlaybookRequest {
  step: number
  context: Context
}

export interface PlaybookHooks {
  model: Model<string>
  /** Called for every model request, before it is answered. */
  onRequest(request: PlaybookRequest): void
  /** The record of a tool result the model is about to see, for `.then` callbacks. */
  resultFor(message: ToolResultMessage): ToolResultRecord
  /** Remembers which step asked for which tool call. */
  onToolCall(toolCallId: string, step: number): void
}

interface ActiveTurn {
  index: number
  prompt: string
  steps: Step[]
  next: number
  firstStep: number
}

/** Serves scripted steps to Pi and explains any mismatch between the script and what Pi asked for. */
export class Playbook {
  private turn: ActiveTurn | undefined
  private served = 0
  private total = 0
  private lastServed: { step: number; text: string } | undefined
  private turnCount = 0
  private readonly pendingCallbacks = new Map<string, ToolCallAction>()
  /** Problems found while serving (exhaustion, a failing callback), reported when the turn ends. */
  private problem: Error | undefined

  constructor(private readonly hooks: PlaybookHooks) {}

  get consumed(): number {
    return this.served
  }

  get remaining(): number {
    return this.total - this.served
  }

  begin(turn: Turn): void {
    const steps = stepsOf(turn.actions)
    this.turn = { index: ++this.turnCount, prompt: turn.prompt, steps, next: 0, firstStep: this.served + 1 }
    this.total += steps.length
    this.problem = undefined
  }

  /** Ends the current turn; throws the diagnostic when the script and Pi disagreed. */
  end(): void {
    const turn = this.turn
    this.turn = undefined
    if (!turn) return
    if (this.problem) {
      this.total -= turn.steps.length - turn.next
      throw this.problem
    }
    if (turn.next < turn.steps.length) {
      const left = turn.steps.slice(turn.next)
      this.total -= left.length
      throw new Error(
        [
          `Playbook not consumed: turn ${turn.index} (${JSON.stringify(turn.prompt)}) ended after ${turn.next} of ${turn.steps.length} step(s).`,
          `  Last consumed: ${this.lastConsumedLine()}`,
          '  Remaining:',
          ...left.map((step, i) => `    step ${this.served + i + 1}: ${describeStep(step)}`),
          'Pi stopped asking the model before the script ran out: a tool call may have been blocked or failed,',
          'an extension may have handled the prompt, or a step may have ended the turn early (says(...) or fails(...)).',
        ].join('\n'),
      )
    }
  }

  private lastConsumedLine(): string {
    return this.lastServed ? `step ${this.lastServed.step}, ${this.lastServed.text}` : 'none'
  }

  /** The model: answers Pi's request with the next step. */
  answer(context: Context, signal: AbortSignal | undefined): ReturnType<typeof createMessageStream> {
    const stream = createMessageStream()
    void this.serve(context, signal).then(
      (message) => writeMessage(stream, message),
      (error: unknown) => {
        this.problem ??= error instanceof Error ? error : new Error(String(error))
        writeMessage(stream, assistantMessage(this.hooks.model, [], 'error', this.problem.message))
      },
    )
    return stream
  }

  private async serve(context: Context, signal: AbortSignal | undefined): Promise<AssistantMessage> {
    const turn = this.turn
    const stepNumber = this.served + 1
    this.hooks.onRequest({ step: stepNumber, context })
    await this.runResultCallbacks(context)
    if (signal?.aborted) return assistantMessage(this.hooks.model, [], 'aborted', 'Request was aborted')
    if (!turn || turn.next >= turn.steps.length) throw this.exhausted(turn, stepNumber)
    const step = turn.steps[turn.next++]!
    this.served++
    this.lastServed = { step: stepNumber, text: describeStep(step) }
    return this.messageFor(step, stepNumber)
  }

  private exhausted(turn: ActiveTurn | undefined, stepNumber: number): Error {
    const where = turn
      ? `turn ${turn.index} (${JSON.stringify(turn.prompt)}) has only ${turn.steps.length} step(s)`
      : 'no turn is running (an extension started one on its own)'
    return new Error(
      [
        `Playbook exhausted: Pi asked the model for step ${stepNumber}, but ${where}.`,
        `  Last consumed: ${this.lastConsumedLine()}`,
        '  Remaining: none',
        'Pi asks the model again after every tool result: end the turn with says(...), or add the step Pi needed.',
      ].join('\n'),
    )
  }

  private async runResultCallbacks(context: Context): Promise<void> {
    for (const message of context.messages) {
      if (message.role !== 'toolResult') continue
      const action = this.pendingCallbacks.get(message.toolCallId)
      if (!action?.onResult) continue
      this.pendingCallbacks.delete(message.toolCallId)
      try {
        await action.onResult(this.hooks.resultFor(message))
      } catch (error) {
        throw new Error(`calls(${JSON.stringify(action.tool)}).then(...) threw: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
      }
    }
  }

  private messageFor(step: Step, stepNumber: number): AssistantMessage {
    const content: AssistantMessage['content'] = []
    let failure: string | undefined
    let callIndex = 0
    const addCall = (action: ToolCallAction) => {
      const id = `call_${stepNumber}_${++callIndex}`
      const params = typeof action.params === 'function' ? action.params() : action.params
      content.push({ type: 'toolCall', id, name: action.tool, arguments: params })
      this.hooks.onToolCall(id, stepNumber)
      if (action.onResult) this.pendingCallbacks.set(id, action)
    }
    for (const action of step.actions) {
      if (action.kind === 'think') content.push({ type: 'thinking', thinking: action.text })
      else if (action.kind === 'say') content.push({ type: 'text', text: action.text })
      else if (action.kind === 'call') addCall(action)
      else if (action.kind === 'parallel') action.calls.forEach(addCall)
      else failure = action.message
    }
    if (failure !== undefined) return assistantMessage(this.hooks.model, content, 'error', failure)
    return assistantMessage(this.hooks.model, content, callIndex > 0 ? 'toolUse' : 'stop')
  }
}

