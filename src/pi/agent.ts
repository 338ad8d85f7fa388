// The session's agent loop: the scripted model in place of a provider, the stream it answers with, the
// `tool_call` decisions made before each tool runs, and the moment the loop has settled.
import type { AgentSession } from '@mariozechner/pi-coding-agent'
import type { AssistantMessageEventStream, Context } from '@mariozechner/pi-ai'
import { asError, messageOf } from '../shared/errors.js'
import { throughPayloadHandlers } from './provider-payload.js'
import type { ScriptedModel } from './adapter.js'
import { adapter } from './running-line.js'
import { ensureScriptedApi } from './scripted-api.js'
import { nextMacrotask, realSetTimeout } from '../shared/real-timers.js'
import type { ToolCallDecision } from './types.js'

/**
 * The session's agent asks `model` instead of a provider. With `before_provider_request` handlers, the request
 * goes through them first as the scripted provider's payload (see provider-payload.ts); a payload they break
 * is `report`ed and the request goes as it was.
 */
export function replaceModel(session: AgentSession, model: ScriptedModel, report: (error: Error) => void): void {
  adapter.replaceModel(session, (context, signal, onPayload) => {
    if (!onPayload || !session.extensionRunner.hasHandlers('before_provider_request')) return model(context, signal)
    return throughPayloadHandlers(context, session.model?.id ?? '', onPayload).then(
      ({ request, payload }) => model(request, signal, payload),
      (error: unknown) => {
        report(asError(error))
        return model(context, signal)
      },
    )
  })
  ensureScriptedApi()
}

/** A provider's request in the `pi` child, as the request a scripted model answers. */
export function providerRequest(context: unknown): Context {
  return adapter.asRequest(context)
}

/** What the user's Esc does while Pi works: queued messages go back to the editor, and the run aborts. */
export function pressEscape(session: AgentSession): void {
  if (!session.isStreaming) return
  session.clearQueue()
  void session.abort()
}

/**
 * Watches the messages queued on the agent (steering, follow-up) until Pi delivers them; the returned
 * function describes those still queued, each with `queuedBy()` as it was when the message was queued.
 */
export function watchQueuedMessages(session: AgentSession, queuedBy: () => string | undefined): () => string[] {
  const agent = session.agent
  const queued = new Map<object, string>()
  for (const method of ['steer', 'followUp'] as const) {
    const queue = agent[method].bind(agent)
    agent[method] = (message) => {
      const by = queuedBy()
      queued.set(message, `${describeQueued(message)}${by === undefined ? '' : `, queued by ${by}`}`)
      queue(message)
    }
  }
  watchAgent(session, (event) => {
    if (event.type === 'message_start') queued.delete(event.message)
  })
  return () => (agent.hasQueuedMessages() ? [...queued.values()] : [])
}

function describeQueued(message: { role: string; content?: unknown; customType?: unknown }): string {
  const content = message.content
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((block: { text?: unknown }) => (typeof block.text === 'string' ? block.text : '')).join(' ') : ''
  const clipped = JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)
  return message.role === 'custom' ? `a custom message (customType ${JSON.stringify(message.customType)}) ${clipped}` : `a ${message.role} message ${clipped}`
}

export function createMessageStream(): AssistantMessageEventStream {
  return adapter.exports.createAssistantMessageEventStream()
}

/**
 * Watches the decision of the `tool_call` hook Pi installs on the agent: a block is known from the hook,
 * never guessed from result text. A throwing handler blocks (Pi fails closed), so it is recorded as a block.
 */
export function watchToolCallDecisions(session: AgentSession, onDecision: (d: ToolCallDecision) => void): void {
  const installed = session.agent.beforeToolCall
  session.agent.beforeToolCall = async (context, signal) => {
    const { id: toolCallId, name: toolName } = context.toolCall
    try {
      const result = installed ? await installed(context, signal) : undefined
      if (result?.block) onDecision({ toolCallId, toolName, blocked: true, reason: result.reason ?? 'Tool execution was blocked' })
      else onDecision({ toolCallId, toolName, blocked: false })
      return result
    } catch (error) {
      onDecision({ toolCallId, toolName, blocked: true, reason: messageOf(error), error })
      throw error
    }
  }
}

/** Runs until the agent is idle and every event it emitted has reached the session's subscribers. */
export function trackSettling(session: AgentSession): () => Promise<void> {
  let emitted = 0
  let delivered = 0
  watchAgent(session, (event) => {
    if (event.type === 'agent_end') emitted++
  })
  session.subscribe((event) => {
    if (event.type === 'agent_end') delivered++
  })
  return async () => {
    for (;;) {
      await session.agent.waitForIdle()
      // Extension handlers run on Pi's event queue; a turn they trigger starts after a macrotask at most.
      await nextMacrotask()
      if (!session.isStreaming && emitted === delivered) return
      await new Promise((resolve) => realSetTimeout(resolve, 1))
    }
  }
}

type AgentEvent = Parameters<Parameters<AgentSession['agent']['subscribe']>[0]>[0]

// Pi's agent awaits each of its listeners in turn for every event of the loop, which costs a few promises per
// listener and event (more under a promise hook): the harness's watchers of one agent share one listener.
const watchersOf = new WeakMap<object, ((event: AgentEvent) => void)[]>()

/** Calls `watcher` with every event the session's agent emits, in the order the agent emits them. */
function watchAgent(session: AgentSession, watcher: (event: AgentEvent) => void): void {
  let watchers = watchersOf.get(session.agent)
  if (watchers === undefined) {
    const all: ((event: AgentEvent) => void)[] = (watchers = [])
    watchersOf.set(session.agent, all)
    session.agent.subscribe((event) => {
      for (const watch of all) watch(event)
    })
  }
  watchers.push(watcher)
}
