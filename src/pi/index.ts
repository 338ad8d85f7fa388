// Every touch of Pi's internals lives in src/pi/, typed against Pi's own declarations. The rest of the
// package imports the harness's small API over the running line from this module, and Pi's types from
// types.ts, the one module of the public declarations that names Pi (see there).
//   running-line  the line, its adapter (lines/), what Pi keeps per process
//   session       a real AgentSession with everything in memory
//   agent         the agent loop: scripted model, tool_call decisions, settling
//   extensions    the extension runner: UI binding, events, shutdown
//   tui           Pi's terminal UI on a terminal in memory, for the components extensions show
//   renderers     what Pi's TUI draws with an extension's message and tool renderers
//   session-files a session as Pi's session file and as Pi's HTML export
//   types         Pi's types, from whichever line the user installed
export type { ScriptedModel } from './adapter.js'
export type { PiLineInfo } from './line.js'

export {
  PI_LINE,
  PiResourceLoader,
  PiSettings,
  BUILTIN_TOOL_NAMES,
  builtinToolDefinition,
  execResult,
  lazyTheme,
  resetPiGlobals,
} from './running-line.js'
export { SCRIPTED_MODEL, createPiSession, type PiSessionOptions, type PiSessionResult } from './session.js'
export { replaceModel, providerRequest, createMessageStream, watchToolCallDecisions, trackSettling, pressEscape, watchQueuedMessages } from './agent.js'
export { answerExtensionModelCalls, type ExtensionModelCall } from './scripted-api.js'
export { askedByPi, extensionOnStack } from './caller.js'
export { bindSession, emitShutdown, emitExtensionEvent, invalidateExtensions, type UIBinding } from './extensions.js'
export { saveSessionFile, exportSessionPage } from './session-files.js'
export { resolveShortcut, type RegisteredShortcut, type ShortcutPress } from './shortcuts.js'
export { startNewSession, resumeSession, forkSession, forkMessages, navigateTree, reloadSession, editorTextAfter } from './lifecycle.js'
export { watchRenders, type Drawing } from './renderers.js'
export { openScreen, preloadTui, screenNow, type ComponentScreen, type Frame, type MountOptions, type ScreenSize } from './tui.js'
