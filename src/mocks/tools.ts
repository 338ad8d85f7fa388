// Tool mocks replace only a tool's `execute`: its name, schema and Pi's hooks around it stay real.
import { isDeepStrictEqual } from 'node:util'
import type { ToolDefinition } from '../pi/types.js'
import type { ToolParams } from '../model/script.js'
import type { ToolContent } from '../records/records.js'
import { closestName, describeReceived, describeValue } from '../shared/errors.js'
import { MockRules, type PendingRule } from './rules.js'
import type { ToolInvocationRule, ToolsMock } from './spec/types.js'

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
  /** The call got past Pi's checks and hooks: its `execute` (or mock) runs. */
  onRan(toolCallId: string): void
  onMocked(toolCallId: string): void
  /** A mock answered something that is not a tool result; `problem` says what, from "answered …". */
  onMalformedAnswer(toolName: string, toolCallId: string, problem: string): void
  /** The tool's own `execute` threw. */
  onThrow(toolName: string, toolCallId: string, error: unknown): void
  /** A mock had no answer for this call (it threw an `UnansweredToolCall`). */
  onUnanswered(error: UnansweredToolCall): void
}

/**
 * Thrown by a mock that has no answer for a call (no rule matches it, the recording has no such call): a
 * mistake in the test, not the tool's failure. Pi gets an error result; the test fails with this message.
 */
export class UnansweredToolCall extends Error {}

/** Thrown for a mocked result with `isError: true`, so Pi reports it as the tool's failure. */
class MockedToolError extends Error {}

/** A mock's answer as Pi's tool result; a malformed answer has been ruled out by `answerProblem`. */
function asResult(value: string | MockToolResult) {
  const result: MockToolResult = typeof value === 'string' ? { content: [{ type: 'text', text: value }] } : value
  if (result.isError) {
    throw new MockedToolError(result.content.map((block) => ('text' in block ? block.text : '')).join('\n'))
  }
  return { content: result.content, details: result.details }
}

/** What is wrong with a mock's answer as a tool result (`answered …, which …`), or undefined when it is one. */
function answerProblem(value: unknown): string | undefined {
  if (typeof value === 'string') return undefined
  const answered = `answered ${describeReceived(value)}`
  if (Array.isArray(value)) return `${answered}, not a result: return { content: [...] } around the blocks`
  if (typeof value !== 'object' || value === null) return `${answered}, not a result: return a string or { content: [...] }`
  const { content } = value as { content?: unknown }
  if (content === undefined) {
    const typo = Object.keys(value).some((key) => closestName(key, ['content']) !== undefined)
    return `${answered}, which has no content array${typo ? ' (did you mean "content"?)' : ''}`
  }
  if (!Array.isArray(content)) return `${answered}, whose content is not an array of blocks`
  const bad = content.findIndex((block) => !isContentBlock(block))
  if (bad === -1) return undefined
  return `${answered}, whose content[${bad}] is ${describeReceived(content[bad])}, not a { type: "text", text } or { type: "image", data, mimeType } block`
}

function isContentBlock(block: unknown): boolean {
  if (typeof block !== 'object' || block === null) return false
  const { type, text, data, mimeType } = block as Record<string, unknown>
  return type === 'text' ? typeof text === 'string' : type === 'image' && typeof data === 'string' && typeof mimeType === 'string'
}

/** Wraps a tool so that a mock answers when one is set, and a throw of the real tool is reported. */
export function instrumentTool<T extends ToolDefinition>(definition: T, hooks: ToolInstrumentation): T {
  const execute: ToolDefinition['execute'] = async (toolCallId, params, signal, onUpdate, ctx) => {
    hooks.onRan(toolCallId)
    const mock = hooks.mockFor(definition.name)
    if (mock !== undefined) {
      hooks.onMocked(toolCallId)
      const value = await answerOf(mock, params as ToolParams, { toolCallId, signal }, hooks)
      const problem = answerProblem(value)
      if (problem !== undefined) {
        hooks.onMalformedAnswer(definition.name, toolCallId, problem)
        throw new TypeError(`Mock for tool "${definition.name}" ${problem}`)
      }
      return asResult(value as string | MockToolResult)
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

/** The mock's answer to the call; a mock's "no answer" is reported before Pi turns it into an error result. */
async function answerOf(mock: MockToolHandler, params: ToolParams, call: MockToolCall, hooks: ToolInstrumentation): Promise<unknown> {
  if (typeof mock !== 'function') return mock
  try {
    return await mock(params, call)
  } catch (error) {
    if (error instanceof UnansweredToolCall) hooks.onUnanswered(error)
    throw error
  }
}

/** The spec's tool invocations as tool mocks: the first rule for the tool whose input_match the call's input contains. */
export function invocationMocks(tools: ToolsMock | undefined): { mocks: Record<string, MockToolHandler>; pending(): PendingRule[] } {
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
        throw new UnansweredToolCall(
          `Unhandled tool call ${name}(${describeValue(params)}): no tools.invocations rule answered. Tried:\n` +
            rules.explain(tried).map((line) => `  ${line}`).join('\n'),
        )
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
