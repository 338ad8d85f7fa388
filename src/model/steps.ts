// A script's actions grouped into steps, one model response each, and the assistant message a step
// answers with: what both the agent's lane and the extensions' lane of the playbook serve.
import type { AssistantMessage, Model } from '../pi/types.js'
import { describeReceived, messageOf } from '../shared/errors.js'
import { describeAction, type Action, type ResponseAction, type ToolCallAction, type ToolParams } from './script.js'
import { assistantMessage } from './stream.js'

/** One model response: the actions that make it (a thinking block joins the action after it). */
export interface Step {
  actions: Action[]
}

export function stepsOf(actions: readonly Action[]): Step[] {
  const steps: Step[] = []
  let pending: Action[] = []
  for (const action of actions) {
    pending.push(action)
    if (action.kind !== 'think' && action.kind !== 'wait') {
      steps.push({ actions: pending })
      pending = []
    }
  }
  if (pending.length > 0) steps.push({ actions: pending })
  return steps
}

export const describeStep = (step: Step) => step.actions.map(describeAction).join(' + ')

/** What the step waits for before the model answers, in order (waitsFor(...) actions). */
export const waitsOf = (step: Step) => step.actions.flatMap((action) => (action.kind === 'wait' ? [action.until] : []))

/**
 * Waits for the step's waitsFor(...) actions in turn; true when `signal` aborted first. A rejection names
 * `where` (`Playbook step 2`).
 */
export async function waitForStep(step: Step, where: string, signal: AbortSignal | undefined): Promise<boolean> {
  for (const until of waitsOf(step)) {
    const waited = Promise.resolve(until())
    const aborted = await new Promise<boolean>((resolve, reject) => {
      if (signal?.aborted) return resolve(true)
      const onAbort = () => resolve(true)
      signal?.addEventListener('abort', onAbort, { once: true })
      waited
        .then(
          () => resolve(false),
          (error: unknown) => reject(new Error(`${where}: waitsFor(...) rejected: ${messageOf(error)}`, { cause: error })),
        )
        .finally(() => signal?.removeEventListener('abort', onAbort))
    })
    if (aborted) return true
  }
  return false
}

/** Whether the user aborts (Esc) while the model answers this step. */
export const abortsAt = (step: Step) => step.actions.some((action) => action.kind === 'abort')

export interface ResponseOptions {
  model: Model<string>
  /** Tool call ids are `${idPrefix}_1`, `${idPrefix}_2`, … */
  idPrefix: string
  /** Where the step is, for a params function's errors: `Turn 1, step 2`. */
  where: string
  onCall(toolCallId: string, action: ToolCallAction): void
}

/** The assistant message a step answers with: its blocks, and the stop reason Pi reads. */
export function responseFor(step: Step, { model, idPrefix, where, onCall }: ResponseOptions): AssistantMessage {
  const content: AssistantMessage['content'] = []
  let failure: string | undefined
  let aborted = false
  let callIndex = 0
  const addCall = (action: ToolCallAction) => {
    const id = action.id ?? `${idPrefix}_${callIndex + 1}`
    callIndex++
    const params = typeof action.params === 'function' ? lateParams(action, action.params, where) : action.params
    content.push({ type: 'toolCall', id, name: action.tool, arguments: params })
    onCall(id, action)
  }
  const add = (action: Action | ResponseAction) => {
    if (action.kind === 'think') content.push({ type: 'thinking', thinking: action.text })
    else if (action.kind === 'say') content.push({ type: 'text', text: action.text })
    else if (action.kind === 'call') addCall(action)
    else if (action.kind === 'parallel') action.calls.forEach(addCall)
    else if (action.kind === 'respond') action.actions.forEach(add)
    else if (action.kind === 'fail') failure = action.message
    else if (action.kind === 'abort') aborted = true
  }
  step.actions.forEach(add)
  // What providers report when the request's signal aborts.
  if (aborted) return assistantMessage(model, content, 'aborted', 'Request was aborted')
  if (failure !== undefined) return assistantMessage(model, content, 'error', failure)
  return assistantMessage(model, content, callIndex > 0 ? 'toolUse' : 'stop')
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
