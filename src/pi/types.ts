// Pi's types as the rest of the package names them, and as the published declarations carry them to users.
// `#pi/coding-agent` and `#pi/ai` are this package's own import map (package.json "imports"): each lists the
// 1.x package, then the 0.73 one, and TypeScript takes the first that is installed. So a project with either
// line alone typechecks against that line's declarations, and no declaration file names the missing one.
// Inside this repository tsconfig.json maps both to the 0.73 packages: the harness's one view of Pi, which
// each line's adapter (lines/) converts at its boundary.
import type { AgentSession } from '#pi/coding-agent'

export type {
  AgentSession,
  AgentSessionRuntime,
  AgentSessionEvent,
  ExtensionAPI,
  ExtensionError,
  ExtensionFactory,
  ExtensionUIContext,
  ExtensionUIDialogOptions,
  SessionManager,
  Theme,
  ToolDefinition,
} from '#pi/coding-agent'
export type {
  AssistantMessage,
  AssistantMessageEventStream,
  Context,
  ImageContent,
  Message,
  Model,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
} from '#pi/ai'

/** A message of the agent's transcript (pi-agent-core's, which is no peer of this package: taken from the session). */
export type AgentMessage = AgentSession['messages'][number]

/** What a lifecycle step did: `cancelled` when an extension's `session_before_*` handler cancelled it. */
export interface LifecycleResult {
  cancelled: boolean
  /** /fork before a user message: the message's text, which Pi puts back in the editor. */
  selectedText?: string
  /** navigateTree to a user message: its text, for the editor. */
  editorText?: string
}

/** A user message of the current branch that /fork can fork before, as Pi's fork selector lists it. */
export interface ForkMessage {
  entryId: string
  text: string
}

/** What the `tool_call` hook Pi installs decided on a call. */
export interface ToolCallDecision {
  toolCallId: string
  toolName: string
  blocked: boolean
  reason?: string
  /** What a throwing `tool_call` handler threw: Pi blocks the call, the handler did not decide to. */
  error?: unknown
}
