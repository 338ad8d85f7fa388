// The spec's session block as Pi's own session state: name, messages, entries, branch, file.
import type { ContentBlock, SessionEntrySpec, SessionMessage, SessionMock } from './spec/types.js'
import type { AgentMessage, Model, SessionManager } from '../pi/types.js'

const DEFAULT_SESSION_NAME = 'test-session'
const DEFAULT_SESSION_FILE = '/tmp/test-session.jsonl'

/** Seeds Pi's session manager so that ctx.sessionManager and pi.getSessionName() return the spec's state. */
export function seedSession(manager: SessionManager, mock: SessionMock | undefined, model: Model<string>): void {
  if (!mock) return
  manager.appendSessionInfo(mock.name ?? DEFAULT_SESSION_NAME)
  for (const message of mock.messages ?? []) manager.appendMessage(toPiMessage(message, model) as never)
  // Pi gives every entry an id of its own: a spec's `id` is a name that a later label's targetId may use.
  const ids = new Map<string, string>()
  for (const [index, entry] of (mock.entries ?? []).entries()) seedEntry(manager, entry, ids, `session.entries[${index}]`)
  if (mock.branch?.length) {
    // The branch is a path of its own from the root: later entries hang off it.
    manager.resetLeaf()
    for (const [index, entry] of mock.branch.entries()) seedEntry(manager, entry, ids, `session.branch[${index}]`)
  }
  const file = mock.file ?? DEFAULT_SESSION_FILE
  manager.getSessionFile = () => file
  const state = { sessionName: manager.getSessionName(), sessionFile: file, ...mock.state }
  Object.assign(manager, { getState: () => state })
}

function seedEntry(manager: SessionManager, entry: SessionEntrySpec, ids: Map<string, string>, where: string): void {
  const id = appendEntry(manager, entry, ids, where)
  if (entry.id !== undefined) ids.set(entry.id, id)
}

// The spec was validated against the schema, which requires each type's fields: nothing here guesses one.
function appendEntry(manager: SessionManager, entry: SessionEntrySpec, ids: ReadonlyMap<string, string>, where: string): string {
  switch (entry.type) {
    case 'custom':
      return manager.appendCustomEntry(entry.customType, entry.data)
    case 'message':
      return manager.appendMessage(entry.message as unknown as AgentMessage as never)
    case 'label': {
      const target = ids.get(entry.targetId)
      if (target === undefined) {
        const known = ids.size > 0 ? `the ids seeded before it: ${[...ids.keys()].map((key) => JSON.stringify(key)).join(', ')}` : 'no entry before it has an id'
        throw new Error(`mock spec ${where}: a label's targetId ${JSON.stringify(entry.targetId)} names no entry seeded before it (${known})`)
      }
      return manager.appendLabelChange(target, entry.label)
    }
    case 'session_info':
      return manager.appendSessionInfo(entry.name)
    case 'model_change':
      return manager.appendModelChange(entry.provider, entry.modelId)
    case 'thinking_level_change':
      return manager.appendThinkingLevelChange(entry.thinkingLevel)
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
