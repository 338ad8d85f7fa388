// `before_provider_request`: Pi hands a request's provider payload to the extensions' handlers just before
// it is sent, and sends what they return. The scripted model's provider has a payload of its own, the
// request as the harness records it (system prompt, messages, tools) and the model's id; what the handlers
// return is what the model is asked.
import type { Context } from '@mariozechner/pi-ai'
import { describeReceived } from '../shared/errors.js'
import type { PayloadHook } from './adapter.js'

export interface SentPayload {
  /** The request the model answers: the payload's systemPrompt, messages and tools. */
  request: Context
  /** The payload as the handlers left it, fields they added included (`temperature`, …). */
  payload: Record<string, unknown>
}

/** The scripted provider's payload for `request`, through the handlers. Throws when they return something that is no payload. */
export async function throughPayloadHandlers(request: Context, model: string, onPayload: PayloadHook): Promise<SentPayload> {
  const sent = (await onPayload({ model, systemPrompt: request.systemPrompt, messages: request.messages, tools: request.tools ?? [] })) as unknown
  if (typeof sent !== 'object' || sent === null || !Array.isArray((sent as { messages?: unknown }).messages)) {
    throw new TypeError(
      `A "before_provider_request" handler returned ${describeReceived(sent)} as the payload: the scripted model's provider sends { model, systemPrompt, messages, tools } (messages an array); return the payload you were given, changed, or nothing to keep it.`,
    )
  }
  const payload = sent as Record<string, unknown> & { messages: Context['messages'] }
  const { systemPrompt, tools } = payload as { systemPrompt?: unknown; tools?: unknown }
  return {
    request: {
      ...(typeof systemPrompt === 'string' ? { systemPrompt } : {}),
      messages: payload.messages,
      ...(Array.isArray(tools) ? { tools: tools as Context['tools'] } : {}),
    },
    payload,
  }
}
