// Bare Pi on `@mariozechner/pi-coding-agent` (0.73, Node >=20.6): only what differs from the other line.
import { AuthStorage, ModelRegistry } from '@mariozechner/pi-coding-agent'

export { createAgentSession, createBashToolDefinition, DefaultResourceLoader, SessionManager, SettingsManager } from '@mariozechner/pi-coding-agent'
export { createAssistantMessageEventStream } from '@mariozechner/pi-ai'

/** createAgentSession's model options: the provider gets a key in memory (prompt() refuses one without). */
export async function modelServices(model) {
  const authStorage = AuthStorage.inMemory({ [model.provider]: { type: 'api_key', key: 'bench' } })
  return { authStorage, modelRegistry: ModelRegistry.inMemory(authStorage) }
}

/** The agent calls `stream(model)` instead of a provider. */
export function replaceStream(session, stream) {
  session.agent.streamFn = (model) => stream(model)
}
