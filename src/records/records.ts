// What a session did, recorded as it happened: the records matchers and tests read.
import type { AgentMessage, AgentSessionEvent, Message, ToolResultMessage } from '../pi/types.js'

export type ToolContent = ToolResultMessage['content']

export interface ToolCallRecord {
  /** The playbook step whose model message asked for this call (0 when the call did not come from the playbook). */
  step: number
  toolCallId: string
  toolName: string
  input: Record<string, unknown>
  blocked: boolean
  blockReason?: string
  /** The block came from a `tool_call` handler that threw (Pi fails closed), not from one that decided to block. */
  blockedByError?: true
}

export interface ToolResultRecord {
  step: number
  toolCallId: string
  toolName: string
  /** The text blocks of the result, joined by newlines. */
  text: string
  content: ToolContent
  isError: boolean
  details: unknown
  /** True when a mock answered instead of the tool's own `execute`. */
  mocked: boolean
}

export interface UICallRecord {
  method: string
  args: unknown[]
  returnValue?: unknown
  /** True when nothing scripted the dialog and the mock spec's ui block default answered it (confirm_default, dialog_default). */
  defaulted?: true
}

export interface ModelRequestRecord {
  step: number
  systemPrompt: string
  /** The messages Pi sent, as Pi built them for this request (rebuilt on read from a shared log). */
  readonly messages: readonly Message[]
  tools: string[]
}

export interface ExecCallRecord {
  command: string
  args: string[]
  cwd?: string
  result: { stdout: string; stderr: string; code: number; killed: boolean }
  /** Which mock rule answered (`exec.rules[N]`, `exec.default_result`), 'real', or 'unhandled'. */
  answeredBy: string
  /** Why the call was rejected, when no mock answered it. */
  error?: string
}

export interface HttpCallRecord {
  method: string
  url: string
  headers: Record<string, string>
  body: string
  /** Absent when the request failed as a connection instead of getting a response. */
  status?: number
  /** The connection failure the caller saw instead of a response. */
  error?: string
  /** `http.rules[N]`, `http.default_response`, `unhandled`, or `refused` (passed through to a network that is off). */
  answeredBy: string
}

export interface ExtensionErrorRecord {
  extensionPath: string
  event: string
  error: string
  stack?: string
}

export function textOf(content: readonly { type: string }[]): string {
  return content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n')
}

export class SessionRecords {
  readonly all: AgentSessionEvent[] = []
  readonly toolCalls: ToolCallRecord[] = []
  readonly toolResults: ToolResultRecord[] = []
  readonly ui: UICallRecord[] = []
  readonly messages: AgentMessage[] = []
  readonly modelRequests: ModelRequestRecord[] = []
  readonly exec: ExecCallRecord[] = []
  readonly http: HttpCallRecord[] = []
  readonly extensionErrors: ExtensionErrorRecord[] = []

  toolCallsFor(name: string): ToolCallRecord[] {
    return this.toolCalls.filter((call) => call.toolName === name)
  }

  toolResultsFor(name: string): ToolResultRecord[] {
    return this.toolResults.filter((result) => result.toolName === name)
  }

  uiCallsFor(method: string): UICallRecord[] {
    return this.ui.filter((call) => call.method === method)
  }

  blockedCalls(): ToolCallRecord[] {
    return this.toolCalls.filter((call) => call.blocked)
  }

  /** Tool names in the order the model called them. */
  toolSequence(): string[] {
    return this.toolCalls.map((call) => call.toolName)
  }

  lastAssistantText(): string | undefined {
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = this.messages[i]!
      if (message.role === 'assistant') return textOf(message.content)
    }
    return undefined
  }
}
