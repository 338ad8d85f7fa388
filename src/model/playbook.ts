// The playbook replaces the model: each time Pi asks the model, the next scripted step answers.
import { createMessageStream } from '../pi/index.js'
import type { AssistantMessage, AssistantMessageEventStream, Context, Model, ToolResultMessage } from '../pi/types.js'
import { assistantMessage, writeMessage } from './stream.js'
import type { ToolCallRecord, ToolResultRecord } from '../records/records.js'
import { asError, messageOf } from '../shared/errors.js'
import { HeldStarts, unexpectedStart, unscriptedTurn, UpcomingTurns } from './upcoming-turns.js'
import { ExtensionLane, lastUserText, unscriptedCall, type ExtensionRequest } from './extension-lane.js'
import { checkedTurn, type ExtensionAnswersAction, type ToolCallAction, type Turn } from './script.js'
import { abortsAt, describeStep, responseFor, stepsOf, waitForStep, type Step } from './steps.js'
import { notConsumed } from './not-consumed.js'

export interface PlaybookRequest {
  step: number
  context: Context
  /** The agent loop asked, or an extension on its own (`complete(ctx.model, …)`). */
  by: 'agent' | 'extension'
  /** The extension that asked, when `by` is `extension` and the call stack names it. */
  extensionPath?: string
  /** The provider payload as `before_provider_request` handlers left it, when some ran. */
  payload?: Record<string, unknown>
}

export interface PlaybookHooks {
  model: Model<string>
  /** Called for every model request, before it is answered. */
  onRequest(request: PlaybookRequest): void
  /** The record of a tool result the model is about to see, for `.then` callbacks. */
  resultFor(message: ToolResultMessage): ToolResultRecord
  /** The record of a tool call (blocked or not), for `.then` callbacks. */
  callFor(toolCallId: string): ToolCallRecord | undefined
  /** Whether the call's `execute` (or its mock) ran, rather than Pi refusing it. */
  ran(toolCallId: string): boolean
  /** Remembers which step asked for which tool call. */
  onToolCall(toolCallId: string, step: number): void
  /** Aborts the run as the user's Esc does (an aborts() step). */
  abort(): void
  /** A problem outside the agent's turn (an unscripted extension model call): fails the test. */
  report(error: Error): void
  /** The messages Pi still holds queued (steering, follow-up), described; for the not-consumed diagnostic. */
  stillQueued(): string[]
  /** The session's timeline (`Session timeline:` and its lines), undefined while nothing happened; it ends the diagnostic. */
  timeline(): string | undefined
}

/** Thrown by a step's own check (a replayed call that now behaves otherwise): a whole diagnostic, reported as it is. */
export class StepCheckFailed extends Error {}

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
  // Described only when a diagnostic needs it: most runs never print it.
  private lastServed: { number: number; step: Step } | undefined
  private turnCount = 0
  /** The step whose model request waits for `.then` callbacks of earlier calls. */
  private answering: number | undefined
  private readonly pendingCallbacks = new Map<string, ToolCallAction>()
  /** Answers for the model calls extensions make themselves. */
  private readonly extensions = new ExtensionLane()
  /** Problems found while serving (exhaustion, a failing callback), reported when the turn ends. */
  private problem: Error | undefined
  /** Turns scripted for extensions to start on their own (`t.next`), in the order they will start. */
  readonly upcoming = new UpcomingTurns()
  /** The test called t.abort() during the running turn. */
  private aborted = false
  /** Turns extensions start while the running turn is ending, held until it has ended. */
  private readonly heldStarts = new HeldStarts()

  /** `stillQueued` follows the session's instance (/new, /resume and /fork replace it). */
  constructor(readonly hooks: PlaybookHooks) {}

  get consumed(): number {
    return this.served + this.extensions.consumed
  }

  get remaining(): number {
    return this.total - this.served + this.extensions.size - this.extensions.used + this.upcoming.steps
  }

  /** Where the script is: the running turn and the last step it served (`turn 1 ("hi"), playbook step 2`). */
  get position(): string | undefined {
    const turn = this.turn
    if (!turn) return undefined
    const step = turn.next === 0 ? `before playbook step ${turn.firstStep}` : `playbook step ${turn.firstStep + turn.next - 1}`
    return `turn ${turn.index} (${JSON.stringify(turn.prompt)}), ${step}`
  }

  /** The step whose answer a waitsFor(...) holds now, if one does. */
  waiting: number | undefined

  /** The step Pi asked for while a `calls(...).then` callback still runs, if one does. */
  get asking(): number | undefined {
    return this.answering
  }

  begin(turn: Turn): void {
    const { prompt, actions } = checkedTurn(turn, 'run(...turns)')
    const forExtensions = actions.filter((action): action is ExtensionAnswersAction => action.kind === 'extension')
    const steps = stepsOf(actions.filter((action) => action.kind !== 'extension'))
    this.extensions.load(forExtensions)
    this.turn = { index: ++this.turnCount, prompt, steps, next: 0, firstStep: this.served + 1 }
    this.total += steps.length
    this.problem = undefined
    this.aborted = false
  }

  /** The test pressed Esc (t.abort()): a turn that stops early is not blamed on the script. */
  abortedByTest(): void {
    if (this.turn) this.aborted = true
  }

  /** The test's call for the running turn has returned; what Pi does until it settles still belongs to the turn. */
  ending(): void {
    if (this.turn) this.heldStarts.ending()
  }

  /** Starts a turn an extension starts on its own: at once, or once the ending turn has ended (see HeldStarts). */
  afterTurn(start: () => void): void {
    this.heldStarts.start(start)
  }

  /** Ends the current turn; throws the diagnostic when the script and Pi disagreed. */
  end(): void {
    try {
      this.check()
    } finally {
      this.heldStarts.ended((error) => this.hooks.report(error))
    }
  }

  private check(): void {
    const turn = this.turn
    this.turn = undefined
    if (!turn) return
    const unused = this.extensions.finish()
    if (this.problem) {
      this.total -= turn.steps.length - turn.next
      throw this.problem
    }
    const left = turn.steps.slice(turn.next)
    if (left.length === 0 && unused.length === 0) return
    this.total -= left.length
    const lines = notConsumed({
      name: `turn ${turn.index} (${JSON.stringify(turn.prompt)})`,
      ended: `${turn.next} of ${turn.steps.length}`,
      lastConsumed: this.lastConsumedLine(),
      remaining: left.map((step, i) => `step ${this.served + i + 1}: ${describeStep(step)}`),
      unusedExtensionAnswers: unused.map(({ step, number }) => `extension call ${number}: ${describeStep(step)}`),
      queued: this.hooks.stillQueued(),
      abortedByTest: this.aborted,
    })
    const timeline = this.hooks.timeline()
    throw new Error([...lines, ...(timeline === undefined ? [] : ['', timeline])].join('\n'))
  }

  private lastConsumedLine(): string {
    return this.lastServed ? `step ${this.lastServed.number}, ${describeStep(this.lastServed.step)}` : 'none'
  }

  /** The model: answers Pi's request with the next step. */
  answer(context: Context, signal: AbortSignal | undefined, payload?: Record<string, unknown>): AssistantMessageEventStream {
    const stream = createMessageStream()
    void this.serve(context, signal, payload).then(
      (message) => writeMessage(stream, message),
      (error: unknown) => {
        this.problem ??= asError(error)
        writeMessage(stream, assistantMessage(this.hooks.model, [], 'error', this.problem.message))
      },
    )
    return stream
  }

  private async serve(context: Context, signal: AbortSignal | undefined, payload: Record<string, unknown> | undefined): Promise<AssistantMessage> {
    const stepNumber = this.served + 1
    const [turn, mismatch] = this.turn ? [this.turn] : this.startUpcoming(context, stepNumber)
    this.hooks.onRequest({ step: stepNumber, context, by: 'agent', ...(payload === undefined ? {} : { payload }) })
    if (!turn) return assistantMessage(this.hooks.model, [], 'error', 'Unscripted model request: no turn is scripted for a turn an extension started')
    if (mismatch) throw mismatch
    this.answering = stepNumber
    try {
      await this.runResultCallbacks(context)
    } finally {
      this.answering = undefined
    }
    // After the test's t.abort() Pi asks no more in this turn; a Pi in another process (the process depth) may
    // ask once more before the abort reaches it across the pipe, and that request is the one the abort ends.
    if (signal?.aborted || this.aborted) return assistantMessage(this.hooks.model, [], 'aborted', 'Request was aborted')
    if (turn.next >= turn.steps.length) throw this.exhausted(turn, stepNumber)
    const step = turn.steps[turn.next++]!
    this.served++
    this.lastServed = { number: stepNumber, step }
    if (await this.held(step, stepNumber, signal)) return assistantMessage(this.hooks.model, [], 'aborted', 'Request was aborted')
    // Esc while the model answers: Pi aborts the run's signal, and the provider reports `aborted`.
    if (abortsAt(step)) this.hooks.abort()
    return responseFor(step, {
      model: this.hooks.model,
      idPrefix: `call_${stepNumber}`,
      where: `Turn ${turn.index}, step ${stepNumber}`,
      onCall: (id, action) => {
        this.hooks.onToolCall(id, stepNumber)
        if (action.onResult) this.pendingCallbacks.set(id, action)
      },
    })
  }

  /**
   * The model, for a call an extension makes itself: the running turn's next forExtension(...) answer.
   * An unscripted call fails the test (reported) and gets a provider error, never a rejection.
   */
  answerExtension(request: ExtensionRequest, model: Model<string>): AssistantMessageEventStream {
    const stream = createMessageStream()
    const aborted = request.signal?.aborted === true
    const taken = aborted ? undefined : this.extensions.take()
    const number = taken?.number ?? this.extensions.consumed + 1
    this.hooks.onRequest({ step: number, context: request.context, by: 'extension', ...(request.extensionPath === undefined ? {} : { extensionPath: request.extensionPath }) })
    const answer = async (): Promise<AssistantMessage> => {
      if (!taken) throw unscriptedCall(request, this.turn, this.extensions.size)
      // A waitsFor(...) holds the answer; an abort meanwhile ends it `aborted`.
      if (await this.held(taken.step, number, request.signal)) return assistantMessage(model, [], 'aborted', 'Request was aborted')
      return responseFor(taken.step, { model, idPrefix: `ext_${number}`, where: `Extension call ${number}`, onCall: () => {} })
    }
    if (aborted) writeMessage(stream, assistantMessage(model, [], 'aborted', 'Request was aborted'))
    else
      void answer().then(
        (message) => writeMessage(stream, message),
        (error: unknown) => {
          this.hooks.report(asError(error))
          writeMessage(stream, assistantMessage(model, [], 'error', messageOf(error).split('\n')[0]))
        },
      )
    return stream
  }

  /**
   * A model request while no turn runs: an extension started one on its own. The next turn scripted with
   * later() takes it; without one, the request fails the test (reported) and gets a provider error.
   */
  private startUpcoming(context: Context, stepNumber: number): [ActiveTurn | undefined, Error?] {
    const first = lastUserText(context) ?? ''
    const upcoming = this.upcoming.take()
    if (!upcoming) {
      this.hooks.report(unscriptedTurn(++this.turnCount, first, stepNumber))
      return [undefined]
    }
    this.begin(upcoming.turn)
    const turn = this.turn!
    upcoming.started(turn.index)
    return turn.prompt === first ? [turn] : [turn, unexpectedStart(turn.prompt, turn.index, first)]
  }

  private exhausted(turn: ActiveTurn, stepNumber: number): Error {
    return new Error(
      [
        `Playbook exhausted: Pi asked the model for step ${stepNumber}, but turn ${turn.index} (${JSON.stringify(turn.prompt)}) has only ${turn.steps.length} step(s).`,
        `  Last consumed: ${this.lastConsumedLine()}`,
        '  Remaining: none',
        'Pi asks the model again after every tool result: end the turn with says(...), or add the step Pi needed.',
      ].join('\n'),
    )
  }

  /** Waits for the step's waitsFor(...) actions; true when the request was aborted meanwhile. */
  private async held(step: Step, stepNumber: number, signal: AbortSignal | undefined): Promise<boolean> {
    this.waiting = stepNumber
    try {
      return await waitForStep(step, `Playbook step ${stepNumber}`, signal)
    } finally {
      this.waiting = undefined
    }
  }

  private async runResultCallbacks(context: Context): Promise<void> {
    // Most scripts wait on no result: the whole transcript is not scanned for none on every request.
    if (this.pendingCallbacks.size === 0) return
    for (const message of context.messages) {
      if (message.role !== 'toolResult') continue
      const action = this.pendingCallbacks.get(message.toolCallId)
      if (!action?.onResult) continue
      this.pendingCallbacks.delete(message.toolCallId)
      try {
        await action.onResult(this.hooks.resultFor(message), this.hooks.callFor(message.toolCallId), this.hooks.ran(message.toolCallId))
      } catch (error) {
        if (error instanceof StepCheckFailed) throw error
        throw new Error(`calls(${JSON.stringify(action.tool)}).then(...) threw: ${messageOf(error)}`, { cause: error })
      }
    }
  }
}
