// Every touch of Pi's internals lives in src/pi/, typed against Pi's own declarations. The rest of src/
// imports from this module only: Pi's types it needs, and the harness's small API over the running line.
//   running-line  the line, its adapter (lines/), what Pi keeps per process
//   session       a real AgentSession with everything in memory
//   agent         the agent loop: scripted model, tool_call decisions, settling
//   extensions    the extension runner: UI binding, events, shutdown
export type {
  AgentSession,
  AgentSessionEvent,
  ExtensionAPI,
  ExtensionError,
  ExtensionFactory,
  ExtensionUIContext,
  ExtensionUIDialogOptions,
  SessionManager,
  Theme,
  ToolDefinition,
} from '@mariozechner/pi-coding-agent'
export type { AgentMessage } from '@mariozechner/pi-agent-core'
export type {
  AssistantMessage,
  Context,
  ImageContent,
  Message,
  Model,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
} from '@mariozechner/pi-ai'

export type { ScriptedModel } from './adapter.js'
export type { PiLineInfo } from './line.js'

export {
  PI_LINE,
  PiResourceLoader,
  PiSettings,
  BUILTIN_TOOL_NAMES,
  builtinToolDefinition,
  execResult,
  currentTheme,
  resetPiGlobals,
} from './running-line.js'
export { SCRIPTED_MODEL, createPiSession, type PiSessionOptions, type PiSessionResult } from './session.js'
export { replaceModel, createMessageStream, watchToolCallDecisions, trackSettling, type ToolCallDecision } from './agent.js'
export { bindSession, emitShutdown, emitExtensionEvent, type UIBinding } from './extensions.js'
