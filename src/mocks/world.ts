// One mocked world: the blocks of a pi.ext.mock_spec.v1 (from a file, an object, or session options)
// turned into what the session needs: seeded state, API overrides, dialog answers, events to fire.
import { isDeepStrictEqual } from 'node:util'
import { AssertionError, deepStrictEqual } from 'node:assert'
import { resolve } from 'node:path'
import { readJsonFile } from './spec/load.js'
import type { ContentBlock, EventFire, MockSpec, ModelMock, SessionMessage, SessionMock, ToolInvocationRule, ToolsMock, UiMock } from './spec/types.js'
import { MockSpecError, validateMockSpec } from './spec/validate.js'
import { MockRules, type PendingRule } from './rules.js'
import type { MockToolHandler, MockToolResult } from './tools.js'
import type { MockUIOptions } from './ui.js'
import { SCRIPTED_MODEL, type AgentMessage, type ExtensionAPI, type Model, type SessionManager } from '../pi/index.js'

/** The blocks of a mock spec, without its header: what `createTestSession({ mocks })` takes. */
export type MockBlocks = Omit<MockSpec, 'schema' | 'extension_id' | 'description'>

/**
 * Reads and validates `mockSpec` (a path, resolved against `root`, or an object) and lays `mocks` over
 * it, block by block. Errors name the path as it was written.
 */
export function resolveMocks(
  mockSpec: string | MockSpec | undefined,
  mocks: MockBlocks | undefined,
  { root, extensionIds }: { root: string; extensionIds: () => string[] },
): MockBlocks {
  if (mockSpec === undefined && mocks === undefined) return {}
  const known = extensionIds()
  const ids = known.length > 0 ? { extensionIds: known } : {}
  let spec: MockBlocks = {}
  if (typeof mockSpec === 'string') spec = validateMockSpec(readSpecFile(resolve(root, mockSpec), mockSpec), { ...ids, source: mockSpec })
  else if (mockSpec !== undefined) spec = validateMockSpec(mockSpec, ids)
  if (mocks !== undefined) {
    validateMockSpec({ schema: 'pi.ext.mock_spec.v1', extension_id: 'mocks', ...mocks }, { source: 'createTestSession({ mocks })' })
  }
  const { schema: _schema, extension_id: _id, description: _description, ...blocks } = spec as MockSpec
  return { ...blocks, ...mocks }
}

function readSpecFile(path: string, written: string): unknown {
  try {
    return readJsonFile(path)
  } catch (error) {
    throw error instanceof MockSpecError ? new MockSpecError(written, error.problems) : error
  }
}

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

/** The model the session reports: the spec's current model (from its available models when listed). */
export function modelFor(mock: ModelMock | undefined): { model: Model<string>; available: Model<string>[] } {
  const available = (mock?.available_models ?? []).map(
    (m): Model<string> => ({
      ...SCRIPTED_MODEL,
      id: m.id,
      name: m.name,
      provider: m.provider,
      reasoning: m.reasoning ?? false,
      input: (m.input ?? ['text']) as Model<string>['input'],
      contextWindow: m.context_window ?? SCRIPTED_MODEL.contextWindow,
      maxTokens: m.max_tokens ?? SCRIPTED_MODEL.maxTokens,
      cost: { ...SCRIPTED_MODEL.cost, input: m.cost?.input ?? 0, output: m.cost?.output ?? 0 },
    }),
  )
  const current = mock?.current
  if (!current) return { model: SCRIPTED_MODEL, available }
  const listed = available.find((m) => m.provider === current.provider && m.id === current.model_id)
  const model: Model<string> = listed ?? {
    ...SCRIPTED_MODEL,
    ...(current.provider ? { provider: current.provider } : {}),
    ...(current.model_id ? { id: current.model_id } : {}),
    ...(current.name ? { name: current.name } : {}),
    // A level other than off needs a reasoning model, or Pi clamps it.
    reasoning: (mock?.thinking_level ?? 'off') !== 'off',
  }
  return { model, available }
}

const refused = (what: string, block: string) =>
  new Error(`${what} is refused by the mock spec (${block}.accept_mutations: false)`)

/** The extension API as the spec's session, tools and model blocks describe it. */
export function overrideApi(api: ExtensionAPI, blocks: MockBlocks): ExtensionAPI {
  const { session, tools, model } = blocks
  const overrides: Partial<ExtensionAPI> = {}
  if (session?.accept_mutations === false) {
    overrides.setSessionName = () => {
      throw refused('pi.setSessionName()', 'session')
    }
    overrides.appendEntry = () => {
      throw refused('pi.appendEntry()', 'session')
    }
    overrides.setLabel = () => {
      throw refused('pi.setLabel()', 'session')
    }
  }
  if (tools?.active_tools) {
    let active = [...tools.active_tools]
    overrides.getActiveTools = () => [...active]
    overrides.setActiveTools = (names) => {
      active = [...names]
      api.setActiveTools(names)
    }
  }
  if (tools?.all_tools) {
    const all = tools.all_tools.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      parameters: (t.input_schema ?? { type: 'object', properties: {} }) as never,
      sourceInfo: { path: `<mock:${t.name}>`, source: 'mock', scope: 'temporary', origin: 'top-level' } as never,
    }))
    overrides.getAllTools = () => all
  }
  if (model) {
    let level = model.thinking_level ?? 'off'
    overrides.getThinkingLevel = () => level as never
    overrides.setThinkingLevel = (next) => {
      if (model.accept_mutations === false) throw refused('pi.setThinkingLevel()', 'model')
      level = next as typeof level
      api.setThinkingLevel(next)
    }
    if (model.accept_mutations === false) {
      overrides.setModel = async () => {
        throw refused('pi.setModel()', 'model')
      }
    }
  }
  return { ...api, ...overrides }
}

/** The spec's tool invocations as tool mocks: the first rule for the tool whose input_match the call's input contains. */
export function invocationMocks(
  tools: ToolsMock | undefined,
  onUnhandled: (error: Error) => void,
): { mocks: Record<string, MockToolHandler>; pending(): PendingRule[] } {
  const rules = new MockRules<{ name: string; input: unknown }, ToolInvocationRule>(tools?.invocations, 'tools', {
    mismatches: (rule, call) => {
      if (rule.name !== call.name) return [`it is for ${rule.name}`]
      return contains(call.input, rule.input_match ?? {}) ? [] : [`the input does not contain ${JSON.stringify(rule.input_match)}`]
    },
    describe: (rule) => `${rule.name} input_match ${JSON.stringify(rule.input_match ?? {})}`,
  }, 'invocations')
  const mocks: Record<string, MockToolHandler> = {}
  for (const name of new Set((tools?.invocations ?? []).map((rule) => rule.name))) {
    mocks[name] = (params) => {
      const lookup = rules.find({ name, input: params })
      if (!lookup.hit) {
        const tried = lookup.misses.filter((miss) => tools!.invocations![miss.index]!.name === name)
        const error = new Error(
          `Unhandled tool call ${name}(${JSON.stringify(params)}): no tools.invocations rule answered. Tried:\n` +
            rules.explain(tried).map((line) => `  ${line}`).join('\n'),
        )
        onUnhandled(error)
        throw error
      }
      const { rule } = lookup.hit
      if (rule.error !== undefined) return { content: [{ type: 'text', text: rule.error }], isError: true }
      return toolResult(rule.result)
    }
  }
  return { mocks, pending: () => rules.pending() }
}

function toolResult(result: Record<string, unknown> | undefined): MockToolResult {
  if (result && Array.isArray(result.content)) return result as unknown as MockToolResult
  return { content: [{ type: 'text', text: JSON.stringify(result ?? {}) }], details: result }
}

/** `actual` has every key of `expected` with an equal value (recursively for objects). */
function contains(actual: unknown, expected: unknown): boolean {
  if (typeof expected !== 'object' || expected === null || Array.isArray(expected)) return isDeepStrictEqual(actual, expected)
  if (typeof actual !== 'object' || actual === null) return false
  return Object.entries(expected).every(([key, value]) => contains((actual as Record<string, unknown>)[key], value))
}

/** The spec's ui block as dialog answers; explicit mockUI options win. */
export function uiOptions(ui: UiMock | undefined): MockUIOptions {
  if (!ui) return {}
  const responses = (ui.responses ?? {}) as Record<string, unknown>
  const text = ui.dialog_default ?? ''
  return {
    confirm: (responses.confirm ?? ui.confirm_default ?? true) as MockUIOptions['confirm'],
    input: (responses.input ?? text) as MockUIOptions['input'],
    editor: (responses.editor ?? text) as MockUIOptions['editor'],
    ...(responses.select === undefined ? {} : { select: responses.select as MockUIOptions['select'] }),
    ...(responses.custom === undefined ? {} : { custom: responses.custom }),
  }
}

export interface FiredEvent {
  event: string
  payload: Record<string, unknown>
  result: unknown
}

/** Fires the spec's events in order; a result that differs from expected_response fails with a diff. */
export async function fireSequence(events: EventFire[], emit: (event: string, payload: Record<string, unknown>) => Promise<unknown>): Promise<FiredEvent[]> {
  const fired: FiredEvent[] = []
  for (const [index, { event, payload = {}, expected_response }] of events.entries()) {
    const result = await emit(event, payload)
    fired.push({ event, payload, result })
    if (expected_response === undefined) continue
    try {
      deepStrictEqual(result ?? undefined, expected_response)
    } catch (error) {
      const diff = error instanceof AssertionError ? error.message : String(error)
      throw new Error(`events.fire_sequence[${index}] (${event}): the handlers returned a different result than expected_response\n${diff}`)
    }
  }
  return fired
}
