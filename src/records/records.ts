// What a session did, recorded as it happened: the records matchers and tests read.
import type { AgentMessage, AgentSessionEvent, Message, ToolResultMessage } from '../pi/types.js'
import { recordList } from './harness-made.js'
import type { Drawing } from '../pi/renderers.js'

/** A custom message, a tool call or a custom entry as Pi's TUI draws it (`t.events.renders`). */
export type RenderRecord = Drawing

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
  /** A dialog's options as the extension passed them (`timeout`, …), `signal: true` standing for an AbortSignal; absent when none were passed. */
  options?: Record<string, unknown>
  /** `custom()` driven by keys: what the component showed, once mounted and after each key. */
  frames?: CustomFrame[]
}

/** One screen of a `ctx.ui.custom()` component, as the terminal shows it, styles removed. */
export interface CustomFrame {
  /** The key fed just before (as scripted, e.g. `'down'`); absent for the first frame. */
  after?: string
  lines: string[]
}

/** A widget as the extension last set it under its key (`ctx.ui.setWidget`). */
export interface WidgetRecord {
  key: string
  /** The lines set; `undefined` when the widget was cleared; for a component factory, the lines it rendered. */
  lines: string[] | undefined
  /** Set by a component factory `(tui, theme) => Component` rather than by lines. */
  component?: true
  /** The widget's options (`placement`), when given. */
  options?: Record<string, unknown>
}

/** A custom entry the extension appended to the session (`pi.appendEntry`). */
export interface AppendedEntryRecord {
  customType: string
  data: unknown
}

export interface ModelRequestRecord {
  /** The playbook step that answered (for `by: 'extension'`, the number of the extension's call in the session). */
  step: number
  /** Who asked: the agent loop, or an extension on its own (`complete(ctx.model, …)`, `ctx.modelRegistry.complete`). */
  by: 'agent' | 'extension'
  /** The extension that asked, when `by` is `extension` and the call stack names it (`<inline:N>` for an inline factory). */
  extensionPath?: string
  systemPrompt: string
  /** The messages Pi sent, as Pi built them for this request (rebuilt on read from a shared log). */
  readonly messages: readonly Message[]
  tools: string[]
  /**
   * The provider payload as the `before_provider_request` handlers left it, when some ran: the scripted
   * provider's `{ model, systemPrompt, messages, tools }` and what they changed or added. The request's
   * `systemPrompt`, `messages` and `tools` are the payload's: what the model was asked.
   */
  payload?: Record<string, unknown>
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

/** The lists of records an instance of the session fills. */
const RECORD_LISTS = ['all', 'toolCalls', 'toolResults', 'ui', 'messages', 'modelRequests', 'exec', 'http', 'extensionErrors', 'widgets', 'entries', 'renders'] as const
type RecordList = (typeof RECORD_LISTS)[number]

export class SessionRecords {
  readonly all = recordList<AgentSessionEvent>()
  readonly toolCalls = recordList<ToolCallRecord>()
  readonly toolResults = recordList<ToolResultRecord>()
  readonly ui = recordList<UICallRecord>()
  readonly messages: AgentMessage[] = recordList<AgentMessage>()
  readonly modelRequests = recordList<ModelRequestRecord>()
  readonly exec = recordList<ExecCallRecord>()
  readonly http = recordList<HttpCallRecord>()
  readonly extensionErrors = recordList<ExtensionErrorRecord>()
  /** Every `ctx.ui.setWidget` call, in order (also in `ui`). */
  readonly widgets = recordList<WidgetRecord>()
  /** Every `pi.appendEntry` call that Pi accepted, in order. */
  readonly entries = recordList<AppendedEntryRecord>()
  /** What Pi's TUI draws: every displayed custom message with a message renderer, every tool call (and its partial results), every custom entry with an entry renderer (1.x). */
  readonly renders = recordList<RenderRecord>()
  // How many events had come when each UI call was made: where it goes in the session's timeline.
  readonly #uiPositions = new WeakMap<UICallRecord, number>()

  /** Records a UI call, and where it came among the events. */
  addUICall(call: UICallRecord): void {
    this.ui.push(call)
    this.#uiPositions.set(call, this.all.length)
  }

  /** Where each instance of the session began in each list: one more after each /new, /resume, /fork and /reload. */
  readonly #instances: { name: string; starts: Record<RecordList, number> }[] = [{ name: 'createTestSession()', starts: this.#lengths() }]

  #lengths(): Record<RecordList, number> {
    return Object.fromEntries(RECORD_LISTS.map((list) => [list, this[list].length])) as Record<RecordList, number>
  }

  /** The instance of the session running now: 1, then one more for each newSession(), resume(), fork(), reload(). */
  get instance(): number {
    return this.#instances.length
  }

  /** A new instance of the session begins (`name` is the step that made it: `newSession()`, `fork("…")`). */
  beginInstance(name: string): void {
    this.#instances.push({ name, starts: this.#lengths() })
  }

  /** The instances so far, numbered from 1, each with the step that made it. */
  instances(): readonly { instance: number; name: string }[] {
    return this.#instances.map(({ name }, index) => ({ instance: index + 1, name }))
  }

  /** Which instance a record (of any list: a tool call, a UI call, an event) belongs to; undefined if not recorded here. */
  instanceOf(record: object): number | undefined {
    for (const list of RECORD_LISTS) {
      const index = (this[list] as object[]).indexOf(record)
      if (index < 0) continue
      let instance = 0
      while (instance < this.#instances.length && this.#instances[instance]!.starts[list] <= index) instance++
      return instance
    }
    return undefined
  }

  /** The records of one instance alone, for matchers narrowed to it: `expect(t.events.ofInstance(2)).toHaveCalledTool('bash')`. */
  ofInstance(instance: number): SessionRecords {
    if (!Number.isInteger(instance) || instance < 1 || instance > this.#instances.length) {
      throw new RangeError(`ofInstance(${String(instance)}): the session has had ${this.#instances.length} instance(s), numbered from 1`)
    }
    const start = this.#instances[instance - 1]!.starts
    const end = this.#instances[instance]?.starts
    const view = new SessionRecords()
    for (const list of RECORD_LISTS) (view[list] as unknown[]).push(...this[list].slice(start[list], end?.[list]))
    for (const call of view.ui) view.#uiPositions.set(call, this.eventsBefore(call) - start.all)
    return view
  }

  /** The turns the test ran (run, command, emit), each with how many events had come when it began. */
  readonly #turns: { prompt: string; eventsBefore: number }[] = []

  /** A turn of the test begins: its prompt (`/name args` for a command, `emit("event")` for an event). */
  beginTurn(prompt: string): void {
    this.#turns.push({ prompt, eventsBefore: this.all.length })
  }

  /** The turns so far, in order. */
  turns(): readonly { prompt: string; eventsBefore: number }[] {
    return this.#turns
  }

  /** How many events had come when `call` was made (0 for a call not recorded through addUICall). */
  eventsBefore(call: UICallRecord): number {
    return this.#uiPositions.get(call) ?? 0
  }

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
