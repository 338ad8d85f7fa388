// The spec's session block as Pi's own session state: name, messages, entries, branch, file.
import type { ContentBlock, SessionMessage, SessionMock } from './spec/types.js'
import type { AgentMessage, Model, SessionManager } from '../pi/types.js'

const DEFAULT_SESSION_NAME = 'test-session'
const DEFAULT_SESSION_FILE = '/tmp/test-session.jsonl'

/** Seeds Pi's session manager so that ctx.sessionManager and pi.getSessionName() return the spec's state. */
export function seedSession(manager: SessionManager, mock: SessionMock | undefined, model: Model<string>): void {
  if (!mock) return
  manager.appendSessionInfo(mock.name ?? DEFAULT_SESSION_NAME)
  for (const message of mock.messages ?? []) manager.appendMessage(toPiMessage(message, model) as never)
  for (const entry of mock.entries ?? []) appendEntry(manager, entry)
  if (mock.branch?.length) {
    // The branch is a path of its own from the root: later entries hang off it.
    manager.resetLeaf()
    for (const entry of mock.branch) appendEntry(manager, entry)
  }
  const file = mock.file ?? DEFAULT_SESSION_FILE
  manager.getSessionFile = () => file
  const state = { sessionName: manager.getSessionName(), sessionFile: file, ...mock.state }
  Object.assign(manager, { getState: () => state })
}

function appendEntry(manager: SessionManager, entry: Record<string, unknown>): void {
  const { type } = entry
  if (type === 'custom') manager.appendCustomEntry(String(entry.customType), entry.data)
  else if (type === 'message') manager.appendMessage(entry.message as never)
  else if (type === 'label') manager.appendLabelChange(String(entry.targetId), entry.label as string | undefined)
  else if (type === 'session_info') manager.appendSessionInfo(String(entry.name))
  else if (type === 'model_change') manager.appendModelChange(String(entry.provider), String(entry.modelId))
  else if (type === 'thinking_level_change') manager.appendThinkingLevelChange(String(entry.thinkingLevel))
  else {
    throw new Error(
      `mock spec session entry of type ${JSON.stringify(type)} is not supported; use custom, message, label, session_info, model_change or thinking_level_change`,
    )
  }
}

/** A spec message (Anthropic-like blocks) as the message Pi stores. */
function toPiMessage(message: SessionMessage, model: Model<string>): AgentMessage {
  const blocks: ContentBlock[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content ?? [])
  const timestamp = Date.now()
  if (message.role === 'user') {
    return { role: 'user', content: blocks.map((b) => ({ type: 'text' as const, text: String(b.text ?? b.content ?? '') })), timestamp }
  }
  return {
    role: 'assistant',
    content: blocks.map((b) =>
      b.type === 'tool_use'
        ? { type: 'toolCall' as const, id: String(b.id ?? ''), name: String(b.name ?? ''), arguments: (b.input ?? {}) as Record<string, unknown> }
        : { type: 'text' as const, text: String(b.text ?? '') },
    ),
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: 'stop',
    timestamp,
  }
}
