// Bare Pi on `@earendil-works/pi-coding-agent` (1.x, Node >=22.19): only what differs from the other line.
import { InMemoryCredentialStore } from '@earendil-works/pi-ai'
import { ModelRuntime } from '@earendil-works/pi-coding-agent'

export { createAgentSession, createBashToolDefinition, DefaultResourceLoader, SessionManager, SettingsManager } from '@earendil-works/pi-coding-agent'
export { createAssistantMessageEventStream } from '@earendil-works/pi-ai'

/**
 * createAgentSession's model options: credentials in memory, no models.json, no network. The bench's
 * provider is unknown to Pi, so it is registered (with its key) as an extension registers its own.
 */
export async function modelServices(model) {
  const modelRuntime = await ModelRuntime.create({ credentials: new InMemoryCredentialStore(), modelsPath: null, allowModelNetwork: false, refreshOnCreate: false })
  modelRuntime.registerProvider(model.provider, { baseUrl: model.baseUrl, apiKey: 'bench', api: model.api })
  return { modelRuntime }
}

/** The agent calls `stream(model)` instead of a provider (1.x also passes a transcript; a script ignores it). */
export function replaceStream(session, stream) {
  session.agent.streamFunction = (model) => stream(model)
}
