// Tool mocks replace only a tool's `execute`: its name, schema and Pi's hooks around it stay real.
import type { ToolDefinition } from '../pi/index.js'
import type { ToolParams } from '../model/script.js'
import type { ToolContent } from '../records/records.js'

export interface MockToolResult {
  content: ToolContent
  details?: unknown
  /** Reported to Pi as a failure of the tool (Pi's tools fail by throwing). */
  isError?: boolean
}

export interface MockToolCall {
  toolCallId: string
  signal: AbortSignal | undefined
}

/** Static text, a whole result, or a function of the call's params. */
export type MockToolHandler =
  | string
  | MockToolResult
  | ((params: ToolParams, call: MockToolCall) => string | MockToolResult | Promise<string | MockToolResult>)

export interface ToolInstrumentation {
  /** The mock answering this tool now, if any. */
  mockFor(toolName: string): MockToolHandler | undefined
  onMocked(toolCallId: string): void
  /** The tool's own `execute` threw. */
  onThrow(toolName: string, toolCallId: string, error: unknown): void
}

/** Thrown for a mocked result with `isError: true`, so Pi reports it as the tool's failure. */
class MockedToolError extends Error {}

async function answer(handler: MockToolHandler, params: ToolParams, call: MockToolCall) {
  const value = typeof handler === 'function' ? await handler(params, call) : handler
  const result: MockToolResult = typeof value === 'string' ? { content: [{ type: 'text', text: value }] } : value
  if (!result || !Array.isArray(result.content)) {
    throw new TypeError(`mock result must be a string or { content: [...] }, got ${JSON.stringify(value)}`)
  }
  if (result.isError) {
    throw new MockedToolError(result.content.map((block) => ('text' in block ? block.text : '')).join('\n'))
  }
  return { content: result.content, details: result.details }
}

/** Wraps a tool so that a mock answers when one is set, and a throw of the real tool is reported. */
export function instrumentTool<T extends ToolDefinition>(definition: T, hooks: ToolInstrumentation): T {
  const execute: ToolDefinition['execute'] = async (toolCallId, params, signal, onUpdate, ctx) => {
    const mock = hooks.mockFor(definition.name)
    if (mock !== undefined) {
      hooks.onMocked(toolCallId)
      return answer(mock, params as ToolParams, { toolCallId, signal })
    }
    try {
      return await definition.execute(toolCallId, params, signal, onUpdate, ctx)
    } catch (error) {
      hooks.onThrow(definition.name, toolCallId, error)
      throw error
    }
  }
  return { ...definition, execute }
}
