// Keys stay snake_case because these types describe the on-disk JSON of schema.json verbatim.

export const MOCK_SPEC_SCHEMA_ID = 'pi.ext.mock_spec.v1'

export type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject
export interface JsonObject {
  [key: string]: JsonValue
}

export interface MockSpec {
  schema: typeof MOCK_SPEC_SCHEMA_ID
  /** Extension under test; must match the extension's id (see `extensionIdFor`). */
  extension_id: string
  description?: string
  session?: SessionMock
  http?: HttpMock
  exec?: ExecMock
  tools?: ToolsMock
  ui?: UiMock
  events?: EventsMock
  model?: ModelMock
}

/** Pre-seeded session state returned by pi.session() calls. */
export interface SessionMock {
  /** Default `"test-session"`. */
  name?: string
  /** Default `"/tmp/test-session.jsonl"`. */
  file?: string
  state?: JsonObject
  messages?: SessionMessage[]
  /** Appended in order after the messages, as Pi's SessionManager appends them. */
  entries?: SessionEntrySpec[]
  /** A path of its own from the root, after `entries`: `getBranch()` follows it, `getEntries()` has both. */
  branch?: SessionEntrySpec[]
  /** Default `true`: mutations succeed silently; `false`: they return errors. */
  accept_mutations?: boolean
}

/**
 * A seeded session entry: one of the entry types that both of Pi's lines write and that Pi's `SessionManager`
 * can append (`SessionEntry` in Pi's `core/session-manager`), with Pi's own field names. Pi assigns each its
 * own `id`, `parentId` and `timestamp` as it appends it: those fields are accepted, as in a session file, and
 * replaced; an entry's `id` is the name a later label's `targetId` uses for it.
 */
export type SessionEntrySpec =
  | CustomEntrySpec
  | MessageEntrySpec
  | LabelEntrySpec
  | SessionInfoEntrySpec
  | ModelChangeEntrySpec
  | ThinkingLevelChangeEntrySpec

export type SessionEntryType = SessionEntrySpec['type']

/** Fields of a session file's entry that Pi assigns anew when the entry is seeded. */
export interface SessionEntrySpecBase {
  /** A name for the entry, which a later label's `targetId` may use; Pi gives the entry an id of its own. */
  id?: string
  parentId?: string | null
  timestamp?: string
}

/** What `pi.appendEntry(customType, data)` writes; extensions read it back from `ctx.sessionManager.getEntries()`. */
export interface CustomEntrySpec extends SessionEntrySpecBase {
  type: 'custom'
  customType: string
  data?: JsonValue
}

/** A message of the transcript in Pi's own shape (`role` `user`, `assistant`, `toolResult`, `custom`…), stored as given. */
export interface MessageEntrySpec extends SessionEntrySpecBase {
  type: 'message'
  message: JsonObject & { role: string }
}

/** A label on an entry (`/label`); without `label`, the label is cleared. */
export interface LabelEntrySpec extends SessionEntrySpecBase {
  type: 'label'
  /** The `id` of an entry seeded before it. */
  targetId: string
  label?: string
}

/** The session's name, as `pi.setSessionName` records it. */
export interface SessionInfoEntrySpec extends SessionEntrySpecBase {
  type: 'session_info'
  name: string
}

export interface ModelChangeEntrySpec extends SessionEntrySpecBase {
  type: 'model_change'
  provider: string
  modelId: string
}

export interface ThinkingLevelChangeEntrySpec extends SessionEntrySpecBase {
  type: 'thinking_level_change'
  thinkingLevel: string
}

export type SessionMessageRole = 'user' | 'assistant'

export interface SessionMessage {
  id?: string
  role: SessionMessageRole
  content?: string | ContentBlock[]
  [key: string]: unknown
}

export type ContentBlockType = 'text' | 'tool_use' | 'tool_result'

export interface ContentBlock {
  type: ContentBlockType
  text?: string
  [key: string]: unknown
}

/** HTTP mock rules, matched in order; first match wins. */
export interface HttpMock {
  rules?: HttpRule[]
  /** Response when no rule matches. */
  default_response?: HttpResponse
}

export interface HttpRule {
  match: HttpMatch
  response: HttpResponse
  /** Max times this rule matches; default 0 = unlimited. */
  times?: number
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS'

/** At least one of url_exact, url_prefix, url_pattern, headers, body_contains is required. */
export interface HttpMatch {
  /** Omit to match any method. */
  method?: HttpMethod
  url_exact?: string
  url_prefix?: string
  /** A pattern in RE2 syntax, without slashes or flags (inline flags such as `(?i)` work); no lookaround or backreferences, so matching is linear in time. */
  url_pattern?: string
  /** All listed request headers must be present. */
  headers?: Record<string, string>
  body_contains?: string
}

/** `body` and `body_json` are mutually exclusive. */
export interface HttpResponse {
  /** 100..599. */
  status: number
  headers?: Record<string, string>
  body?: string
  body_json?: JsonObject
}

/** Shell execution mock rules, matched in order; first match wins. */
export interface ExecMock {
  rules?: ExecRule[]
  /** Result when no rule matches. */
  default_result?: ExecResult
}

export interface ExecRule {
  match: ExecMatch
  result: ExecResult
  /** Max times this rule matches; default 0 = unlimited. */
  times?: number
}

/** At least one of cmd_exact, cmd_prefix, cmd_pattern is required. */
export interface ExecMatch {
  cmd_exact?: string
  cmd_prefix?: string
  /** A pattern in RE2 syntax, without slashes or flags (inline flags such as `(?i)` work); no lookaround or backreferences, so matching is linear in time. */
  cmd_pattern?: string
  /** All listed args must appear in the args array. */
  args_contain?: string[]
}

export interface ExecResult {
  /** Default `""`. */
  stdout?: string
  /** Default `""`. */
  stderr?: string
  /** Exit code; default 0. */
  code?: number
  /** Whether the process was killed (e.g. timeout); default false. */
  killed?: boolean
}

/** Mock for tool-related hostcalls (pi.tool()). */
export interface ToolsMock {
  active_tools?: string[]
  all_tools?: ToolDefinition[]
  /** Matched by tool name. */
  invocations?: ToolInvocationRule[]
}

export interface ToolDefinition {
  name: string
  description?: string
  input_schema?: JsonObject
  [key: string]: unknown
}

export interface ToolInvocationRule {
  name: string
  /** The invocation input must be a superset of this object. */
  input_match?: JsonObject
  result?: JsonObject
  /** If set, returned as an error instead of a result. */
  error?: string
  /** Default 0 = unlimited. */
  times?: number
}

/** UI operation mock: calls are captured as structured events instead of rendered. */
export interface UiMock {
  /** Default `true`. */
  capture?: boolean
  /** Canned responses keyed by UI operation name. */
  responses?: JsonObject
  /** Default `true`. */
  confirm_default?: boolean
  /** Default `""`. */
  dialog_default?: string
}

export interface EventsMock {
  /** Ordered list of events to fire. */
  fire_sequence?: EventFire[]
}

export type MockEventName =
  | 'tool_call'
  | 'tool_result'
  | 'turn_start'
  | 'turn_end'
  | 'before_agent_start'
  | 'input'
  | 'context'
  | 'resources_discover'
  | 'user_bash'
  | 'session_before_compact'
  | 'session_before_tree'

export interface EventFire {
  event: MockEventName
  payload?: JsonObject
  /** Expected handler return value, for assertions. */
  expected_response?: JsonObject
}

export type ThinkingLevel = 'off' | 'low' | 'medium' | 'high'

/** Model and thinking level state for model/thinking APIs. */
export interface ModelMock {
  current?: CurrentModel
  /** Default `"off"`. */
  thinking_level?: ThinkingLevel
  available_models?: AvailableModel[]
  /** Default `true`: setModel/setThinkingLevel succeed; `false`: they return errors. */
  accept_mutations?: boolean
  /** Providers with no API key or login: the registry answers for their models as Pi does without one. */
  without_credentials?: string[]
}

export interface CurrentModel {
  provider?: string
  model_id?: string
  name?: string
}

export interface AvailableModel {
  provider: string
  id: string
  name: string
  /** Default false. */
  reasoning?: boolean
  /** Default `["text"]`. */
  input?: string[]
  context_window?: number
  max_tokens?: number
  cost?: ModelCost
  [key: string]: unknown
}

export interface ModelCost {
  input?: number
  output?: number
}
