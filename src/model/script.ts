// The model script: when(prompt, [...]) turns of calls / says / thinks / parallel / fails actions, plain data.
import type { ToolCallRecord, ToolResultRecord } from '../records/records.js'
import { describeReceived, describeValue } from '../shared/errors.js'

export type ToolParams = Record<string, unknown>

/**
 * Sees a call's result, and its call record (blocked or not), before the model is asked again; `ran` is
 * false when Pi refused the call before its `execute` or mock (blocked, an unknown tool, invalid arguments).
 */
export type ResultCallback = (result: ToolResultRecord, call: ToolCallRecord | undefined, ran: boolean) => void | Promise<void>

export interface ToolCallAction {
  readonly kind: 'call'
  readonly tool: string
  readonly params: ToolParams | (() => ToolParams)
  /** The call's id as the model sends it; unset, the playbook numbers it (`call_<step>_<n>`). */
  readonly id: string | undefined
  readonly onResult: ResultCallback | undefined
  /** Runs `callback` with the call's result before the model is asked again. */
  then(callback: ResultCallback): ToolCallAction
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

/** Several blocks in ONE model message, in order, as a real model often answers. */
export interface RespondAction {
  readonly kind: 'respond'
  readonly actions: readonly (ToolCallAction | SayAction | ThinkAction | ParallelAction | FailAction)[]
}

export interface FailAction {
  readonly kind: 'fail'
  readonly message: string
}

export interface AbortAction {
  readonly kind: 'abort'
}

/** The model holds its answer (the action after this one) until `until()` settles: virtual time, a key, the test's go. */
export interface WaitAction {
  readonly kind: 'wait'
  readonly until: () => PromiseLike<unknown>
}

/** A response step is one of these; a thinking block joins the action after it. */
export type ResponseAction = ToolCallAction | SayAction | ThinkAction | ParallelAction | FailAction | RespondAction | WaitAction

/** Answers for the model calls an extension makes itself (`complete(ctx.model, …)`), apart from the agent's. */
export interface ExtensionAnswersAction {
  readonly kind: 'extension'
  readonly actions: readonly ResponseAction[]
}

export type Action = ResponseAction | AbortAction | WaitAction | ExtensionAnswersAction

export interface Turn {
  readonly prompt: string
  readonly actions: readonly Action[]
}

/** One user prompt and what the model does in answer, in order. */
export function when(prompt: string, actions: readonly Action[] = []): Turn {
  if (typeof prompt !== 'string') throw new TypeError(`when(prompt, actions): prompt must be a string, got ${describeReceived(prompt)}`)
  const call = `when(${JSON.stringify(prompt)}, actions)`
  if (!Array.isArray(actions)) throw new TypeError(`${call}: actions must be an array, got ${describeReceived(actions)}`)
  actions.forEach((action, index) => {
    if (!isAction(action)) throw new TypeError(`${call}: actions[${index}] is ${notAnAction(action)}`)
  })
  return { prompt, actions }
}

const BUILDERS = ['calls', 'says', 'thinks', 'parallel', 'responds', 'fails', 'aborts', 'waitsFor', 'forExtension']
// How each builder is called, as a message shows it: aborts() alone takes nothing.
const callOf = (name: string) => (name === 'aborts' ? 'aborts()' : `${name}(...)`)
const ACTIONS = BUILDERS.map(callOf).join(', ')
const KINDS: readonly unknown[] = ['call', 'say', 'think', 'parallel', 'respond', 'fail', 'abort', 'wait', 'extension']
const RESPONSE_KINDS: readonly unknown[] = ['call', 'say', 'think', 'parallel', 'respond', 'fail', 'wait']
const BLOCK_KINDS: readonly unknown[] = ['call', 'say', 'think', 'parallel', 'fail']

const isAction = (value: unknown): value is Action =>
  typeof value === 'object' && value !== null && KINDS.includes((value as { kind?: unknown }).kind)

/** `null, not an action (calls(...), …)`, with the likely fix for a bare text or an un-called builder. */
function notAnAction(value: unknown): string {
  const text = `${describeReceived(value)}, not an action (${ACTIONS})`
  if (typeof value === 'string') return `${text}: a reply is says(${JSON.stringify(value)})`
  if (typeof value === 'function' && BUILDERS.includes(value.name)) return `${text}: call it, ${callOf(value.name)}`
  return text
}

/** A turn written by hand gets the checks when() makes; `call` names the method for the message. */
export function checkedTurn(turn: Turn, call: string): Turn {
  if (typeof turn !== 'object' || turn === null || Array.isArray(turn)) {
    throw new TypeError(`${call}: a turn is when(prompt, [...]), got ${describeReceived(turn)}`)
  }
  return when(turn.prompt, turn.actions)
}

/** The model calls a tool; `params` may be a function, resolved when the model is asked (late binding). */
export function calls(tool: string, params: ToolParams | (() => ToolParams) = {}): ToolCallAction {
  if (typeof tool !== 'string') throw new TypeError(`calls(tool, params): tool must be a tool name (a string), got ${describeReceived(tool)}`)
  if (typeof params !== 'function' && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    throw new TypeError(`calls(${JSON.stringify(tool)}, params): params must be an object or a function that returns one, got ${describeReceived(params)}`)
  }
  return callAction(tool, params, undefined, undefined)
}

/** A call with the id a recorded model gave it (a replayed session's), so its recorded result can answer it. */
export function callsWithId(id: string, tool: string, params: ToolParams): ToolCallAction {
  return callAction(tool, params, id, undefined)
}

function callAction(
  tool: string,
  params: ToolParams | (() => ToolParams),
  id: string | undefined,
  onResult: ToolCallAction['onResult'],
): ToolCallAction {
  return {
    kind: 'call',
    tool,
    params,
    id,
    onResult,
    then(callback: ResultCallback, reject?: unknown) {
      // `await calls(...)` would call then(resolve, reject) and hang: say what to do instead.
      if (typeof reject === 'function') {
        ;(reject as (e: Error) => void)(new TypeError(`calls(${JSON.stringify(tool)}) is a playbook action, not a promise: pass it to when(prompt, [...])`))
        return this
      }
      return callAction(tool, params, id, callback)
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
  toolCalls.forEach((call, index) => {
    if (!isAction(call) || call.kind !== 'call') throw new TypeError(`parallel(...calls): calls[${index}] is ${isAction(call) ? describeAction(call) : describeReceived(call)}, not a calls(...) action`)
  })
  return { kind: 'parallel', calls: toolCalls }
}

/** Several blocks in ONE model message, in order: text, thinking and tool calls together, e.g. a text before a call. */
export function responds(...actions: RespondAction['actions']): RespondAction {
  checkActions('responds', actions, BLOCK_KINDS, 'a block of a message (calls, says, thinks, parallel, fails)', 'responds(says("Let me look."), calls("read", { path: "a" }))')
  return { kind: 'respond', actions }
}

/** The model request fails (stop reason `error`), as a provider error would. */
export function fails(message: string): FailAction {
  return { kind: 'fail', message }
}

/** The user aborts while the model answers this step, as Esc does: Pi ends the run with stop reason `aborted`. */
export function aborts(): AbortAction {
  return { kind: 'abort' }
}

/**
 * The model holds the answer of the action after this one until `until` settles, as a slow model does: a
 * promise the test resolves, or a function called when the model is asked (`() => sleep(5000)` under fake
 * timers, `() => keyPressed`). An abort (t.abort(), a handler's ctx.abort()) meanwhile ends the step `aborted`.
 */
export function waitsFor(until: PromiseLike<unknown> | (() => PromiseLike<unknown>)): WaitAction {
  if (typeof until === 'function') return { kind: 'wait', until }
  if (typeof (until as PromiseLike<unknown> | null)?.then !== 'function') {
    throw new TypeError(`waitsFor(until): until must be a promise or a function that returns one, got ${describeReceived(until)}`)
  }
  return { kind: 'wait', until: () => until }
}

/**
 * Answers for the model calls extensions make themselves (`complete(ctx.model, …)`, `ctx.modelRegistry.complete`),
 * in the order they ask; the agent's steps are not used for them, nor these for the agent.
 */
export function forExtension(...actions: ResponseAction[]): ExtensionAnswersAction {
  checkActions('forExtension', actions, RESPONSE_KINDS, 'a model response (calls, says, thinks, parallel, responds, fails)', 'forExtension(says("feat: add login"))')
  return { kind: 'extension', actions }
}

/** That `name(...actions)` got at least one action, each of `kinds` (described as `expected`). */
function checkActions(name: string, actions: readonly unknown[], kinds: readonly unknown[], expected: string, example: string): void {
  if (actions.length === 0) throw new TypeError(`${name}(...actions) needs at least one action, e.g. ${example}`)
  actions.forEach((action, index) => {
    if (!isAction(action)) throw new TypeError(`${name}(...actions): actions[${index}] is ${notAnAction(action)}`)
    if (!kinds.includes(action.kind)) throw new TypeError(`${name}(...actions): actions[${index}] is ${describeAction(action)}, not ${expected}`)
  })
}

export function describeAction(action: Action): string {
  switch (action.kind) {
    case 'call':
      return `calls(${JSON.stringify(action.tool)}, ${typeof action.params === 'function' ? '() => {...}' : describeValue(action.params)})`
    case 'say':
      return `says(${JSON.stringify(action.text)})`
    case 'think':
      return `thinks(${JSON.stringify(action.text)})`
    case 'parallel':
      return `parallel(${action.calls.map(describeAction).join(', ')})`
    case 'respond':
      return `responds(${action.actions.map(describeAction).join(', ')})`
    case 'fail':
      return `fails(${JSON.stringify(action.message)})`
    case 'abort':
      return 'aborts()'
    case 'wait':
      return 'waitsFor(...)'
    case 'extension':
      return `forExtension(${action.actions.map(describeAction).join(', ')})`
  }
}
