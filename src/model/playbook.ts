// The playbook replaces the model: each time Pi asks the model, the next scripted step answers.
import { createMessageStream } from '../pi/index.js'
import type { AssistantMessage, AssistantMessageEventStream, Context, Model, ToolResultMessage } from '../pi/types.js'
import { assistantMessage, writeMessage } from './stream.js'
import type { ToolResultRecord } from '../records/records.js'
import { asError, describeReceived, messageOf } from '../shared/errors.js'
import { describeAction, when, type Action, type ToolCallAction, type ToolParams, type Turn } from './script.js'

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
  /** The step whose model request waits for `.then` callbacks of earlier calls. */
  private answering: number | undefined
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

  /** Where the script is: the running turn and the last step it served (`turn 1 ("hi"), playbook step 2`). */
  get position(): string | undefined {
    const turn = this.turn
    if (!turn) return undefined
    const step = turn.next === 0 ? `before playbook step ${turn.firstStep}` : `playbook step ${turn.firstStep + turn.next - 1}`
    return `turn ${turn.index} (${JSON.stringify(turn.prompt)}), ${step}`
  }

  /** The step Pi asked for while a `calls(...).then` callback still runs, if one does. */
  get asking(): number | undefined {
    return this.answering
  }

  begin(turn: Turn): void {
    if (typeof turn !== 'object' || turn === null || Array.isArray(turn)) {
      throw new TypeError(`run(...turns): a turn is when(prompt, [...]), got ${describeReceived(turn)}`)
    }
    // A turn written by hand gets the checks when() makes.
    const { prompt, actions } = when(turn.prompt, turn.actions)
    const steps = stepsOf(actions)
    this.turn = { index: ++this.turnCount, prompt, steps, next: 0, firstStep: this.served + 1 }
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
  answer(context: Context, signal: AbortSignal | undefined): AssistantMessageEventStream {
    const stream = createMessageStream()
    void this.serve(context, signal).then(
      (message) => writeMessage(stream, message),
      (error: unknown) => {
        this.problem ??= asError(error)
        writeMessage(stream, assistantMessage(this.hooks.model, [], 'error', this.problem.message))
      },
    )
    return stream
  }

  private async serve(context: Context, signal: AbortSignal | undefined): Promise<AssistantMessage> {
    const turn = this.turn
    const stepNumber = this.served + 1
    this.hooks.onRequest({ step: stepNumber, context })
    this.answering = stepNumber
    try {
      await this.runResultCallbacks(context)
    } finally {
      this.answering = undefined
    }
    if (signal?.aborted) return assistantMessage(this.hooks.model, [], 'aborted', 'Request was aborted')
    if (!turn || turn.next >= turn.steps.length) throw this.exhausted(turn, stepNumber)
    const step = turn.steps[turn.next++]!
    this.served++
    this.lastServed = { step: stepNumber, text: describeStep(step) }
    return this.messageFor(step, stepNumber, `Turn ${turn.index}, step ${stepNumber}`)
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
        throw new Error(`calls(${JSON.stringify(action.tool)}).then(...) threw: ${messageOf(error)}`, { cause: error })
      }
    }
  }

  private messageFor(step: Step, stepNumber: number, where: string): AssistantMessage {
    const content: AssistantMessage['content'] = []
    let failure: string | undefined
    let callIndex = 0
    const addCall = (action: ToolCallAction) => {
      const id = `call_${stepNumber}_${++callIndex}`
      const params = typeof action.params === 'function' ? lateParams(action, action.params, where) : action.params
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


/** A late-bound params function's result; what went wrong names the turn, the step and the call. */
function lateParams(action: ToolCallAction, params: () => ToolParams, where: string): ToolParams {
  const call = `calls(${JSON.stringify(action.tool)})`
  let result: unknown
  try {
    result = params()
  } catch (error) {
    throw new Error(`${where}: the params function of ${call} threw: ${messageOf(error)}`, { cause: error })
  }
  if (result instanceof Promise) {
    throw new Error(`${where}: the params function of ${call} returned a promise; it runs when the model is asked and must return the params`)
  }
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw new Error(`${where}: the params function of ${call} returned ${describeReceived(result)}, not an object of params`)
  }
  return result as ToolParams
}
