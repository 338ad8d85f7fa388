// The model calls an extension makes itself (`complete(ctx.model, …)` from pi-ai, and on 1.x also
// `ctx.modelRegistry.complete(…)`) reach pi-ai's api registry by the model's api. Every model a session
// has is of the scripted api: one provider for it per process, registered again whenever Pi resets the
// registry (reload, a registry refresh), answers each call with the script of the session whose code made it.
import type { AssistantMessageEventStream, Context, Model } from '@mariozechner/pi-ai'
import { globalSlot } from '../shared/global-slot.js'
import { currentSession, replacedInstance, type SessionScope } from '../shared/session-context.js'
import { CALLER_STACK, callerStack } from './caller.js'
import { adapter } from './running-line.js'

/** The api of every model a session has: pi-ai routes calls of its models here. */
export const SCRIPTED_API = 'scripted'

export interface ExtensionModelCall {
  model: Model<string>
  context: Context
  /** The stack of the code that made the call: who asked. */
  stack: string
  /** The abort signal the caller passed, if any. */
  signal: AbortSignal | undefined
}

export type ExtensionModelAnswer = (call: ExtensionModelCall) => AssistantMessageEventStream

// The sessions answering, by the session context their calls carry.
const answerers = globalSlot('extension-model-answerers', () => new Map<SessionScope, ExtensionModelAnswer>())

/** Makes `answer` take the model calls of `scope`'s extensions until the returned function is called. */
export function answerExtensionModelCalls(scope: SessionScope, answer: ExtensionModelAnswer): () => void {
  ensureScriptedApi()
  answerers.get().set(scope, answer)
  return () => {
    if (answerers.get().get(scope) === answer) answerers.get().delete(scope)
  }
}

/** Puts the scripted api's provider (back) into pi-ai's registry, unless it is there. */
export function ensureScriptedApi(): void {
  adapter.ensureScriptedApi(SCRIPTED_API, routeModelCall)
}

/** A call made outside every session goes to the one session alive; otherwise whose script answers is unknown. */
function routeModelCall(model: Model<string>, context: Context, options: { [CALLER_STACK]?: string; signal?: AbortSignal } | undefined): AssistantMessageEventStream {
  const stack = options?.[CALLER_STACK] ?? callerStack()
  const alive = answerers.get()
  const scope = currentSession()
  const answer = scope !== undefined ? alive.get(scope) : alive.size === 1 ? alive.values().next().value : undefined
  const what = `A model call to ${model.provider}/${model.id}`
  // Code of an instance /new, /resume, /fork or /reload replaced (its timer) gets no answer of the one now.
  const bornIn = scope && replacedInstance(scope)
  if (answer && bornIn !== undefined && scope?.replaced) throw scope.replaced(what, bornIn, undefined, stack)
  if (answer) return answer({ model, context, stack, signal: options?.signal })
  if (scope !== undefined) throw scope.ended?.(what, undefined, stack) ?? new Error(`${what} came from a test session that has ended`)
  if (alive.size === 0) throw new Error(`${what} was made while no test session is alive: the scripted model answers only a session's code`)
  throw new Error(`${what} was made outside any test session while ${alive.size} sessions are alive; whose script answers it cannot be known`)
}
