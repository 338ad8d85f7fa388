// Every touch of Pi's internals lives in src/pi/, typed against Pi's own declarations: this module holds
// what both Pi lines share and reads the running line's adapter (lines/) for the rest. The rest of src/
// reads the small API this module exports.
import type {
  AgentSession,
  AgentSessionEvent,
  DefaultResourceLoader,
  ExtensionError,
  ExtensionFactory,
  ExtensionUIContext,
  SessionManager,
  Theme,
  ToolDefinition,
} from '@mariozechner/pi-coding-agent'
import type { AssistantMessageEventStream, Model } from '@mariozechner/pi-ai'
import type { PiAdapter, ScriptedModel } from './adapter.js'
import { findPiLine } from './line.js'

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

/** The Pi line (scope, version, directory) the sessions run on. */
export const PI_LINE = findPiLine()
// Only the running line's adapter is imported: the other line may not be installed, or not run on this Node.
const { createAdapter } = PI_LINE.scope === '@earendil-works' ? await import('./lines/earendil.js') : await import('./lines/mariozechner.js')
const pi: PiAdapter = createAdapter(PI_LINE)
const { createAgentSession, SessionManager: Sessions, createSyntheticSourceInfo, initTheme } = pi.exports

/** The running line's resource loader and settings, also for loading a package as Pi does. */
export const { DefaultResourceLoader: PiResourceLoader, SettingsManager: PiSettings } = pi.exports

export const BUILTIN_TOOL_NAMES = Object.keys(pi.builtinTools)

/** Pi's own definition of a built-in tool: name, schema, prompt snippet and renderers stay Pi's. */
export function builtinToolDefinition(name: string, cwd: string): ToolDefinition {
  return pi.builtinTools[name]!(cwd)
}

const SCRIPTED_PROVIDER = 'vitest-environment-pi'

/** The model a scripted session reports; it is never contacted (the stream function replaces it). */
export const SCRIPTED_MODEL: Model<string> = {
  id: 'scripted',
  name: 'Scripted model',
  api: 'scripted',
  provider: SCRIPTED_PROVIDER,
  baseUrl: 'http://127.0.0.1:9',
  reasoning: false,
  input: ['text', 'image'],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200_000,
  maxTokens: 16_384,
}

export interface PiSessionOptions {
  cwd: string
  agentDir: string
  /** Factories handed to Pi's loader, each with the path it came from (for errors and sourceInfo). */
  extensions: { factory: ExtensionFactory; path: string }[]
  /** SDK tools, given the names the extensions registered (an SDK tool would replace theirs). */
  customToolsFor: (extensionTools: ReadonlySet<string>) => ToolDefinition[]
  tools?: string[]
  systemPrompt?: string
  /** The model the session reports (never contacted); defaults to SCRIPTED_MODEL. */
  model?: Model<string>
  thinkingLevel?: 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh'
  /** What the model registry lists, instead of Pi's built-in catalog. */
  availableModels?: Model<string>[]
  /** Pre-seeds the session's entries before Pi restores its transcript from them. */
  seed?: (manager: SessionManager) => void
  /** Extension flag values, as `pi --name value` sets them; each must be registered by an extension. */
  flags?: Record<string, boolean | string>
}

export interface PiSessionResult {
  session: AgentSession
  loadErrors: { path: string; error: string }[]
  extensionTools: ReadonlySet<string>
}

// Pi's default active set; SDK tools would otherwise all start active.
const DEFAULT_ACTIVE_TOOLS = ['read', 'bash', 'edit', 'write']

/** A real AgentSession with every manager in memory and nothing discovered from disk. */
export async function createPiSession(options: PiSessionOptions): Promise<PiSessionResult> {
  const model = options.model ?? SCRIPTED_MODEL
  const settingsManager = PiSettings.inMemory({ compaction: { enabled: false }, retry: { enabled: false } })
  const modelServices = await pi.modelServices(model, options.availableModels)
  const sessionManager = Sessions.inMemory(options.cwd)
  options.seed?.(sessionManager)
  const paths = options.extensions.map((e) => e.path)
  const resourceLoader = new PiResourceLoader({
    cwd: options.cwd,
    agentDir: options.agentDir,
    settingsManager,
    extensionFactories: options.extensions.map((e) => e.factory),
    // Inline factories are named <inline:N> by Pi; give them back the file they came from.
    extensionsOverride: (base) => {
      base.extensions.forEach((extension, index) => renameExtension(extension, paths[index]))
      base.errors.forEach((error) => {
        const index = Number(/^<inline:(\d+)>$/.exec(error.path)?.[1]) - 1
        if (paths[index] !== undefined) error.path = paths[index]
      })
      return base
    },
    noExtensions: true,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
    ...(options.systemPrompt === undefined ? {} : { systemPromptOverride: () => options.systemPrompt }),
  })
  await resourceLoader.reload()
  const loaded = resourceLoader.getExtensions()
  const loadErrors = loaded.errors.map((e) => ({ path: e.path, error: e.error }))
  const extensionTools = new Set(loaded.extensions.flatMap((extension) => [...extension.tools.keys()]))
  if (options.flags && loadErrors.length === 0) setFlags(loaded, options.flags)
  const { session } = await createAgentSession({
    cwd: options.cwd,
    agentDir: options.agentDir,
    model,
    thinkingLevel: options.thinkingLevel ?? 'off',
    ...modelServices,
    settingsManager,
    resourceLoader,
    sessionManager,
    customTools: options.customToolsFor(extensionTools),
    ...(options.tools ? { tools: options.tools } : {}),
  })
  if (!options.tools) session.setActiveToolsByName([...new Set([...DEFAULT_ACTIVE_TOOLS, ...extensionTools])])
  return { session, loadErrors, extensionTools }
}

// Set after loading, as Pi's CLI does, so that a value wins over the flag's registered default.
function setFlags(loaded: ReturnType<DefaultResourceLoader['getExtensions']>, flags: Record<string, boolean | string>): void {
  const registered = new Set(loaded.extensions.flatMap((extension) => [...extension.flags.keys()]))
  const unknown = Object.keys(flags).filter((name) => !registered.has(name))
  if (unknown.length > 0) {
    throw new Error(`flags names no registered flag: ${unknown.join(', ')}. Registered flags: ${[...registered].sort().join(', ') || 'none'}`)
  }
  for (const [name, value] of Object.entries(flags)) loaded.runtime.flagValues.set(name, value)
}

type LoadedExtension = ReturnType<DefaultResourceLoader['getExtensions']>['extensions'][number]

function renameExtension(extension: LoadedExtension, path: string | undefined): void {
  if (path === undefined || path.startsWith('<')) return
  const baseDir = path.slice(0, path.lastIndexOf('/')) || '/'
  extension.path = path
  extension.resolvedPath = path
  extension.sourceInfo = createSyntheticSourceInfo(path, { source: 'local', baseDir })
  for (const tool of extension.tools.values()) tool.sourceInfo = extension.sourceInfo
  for (const command of extension.commands.values()) command.sourceInfo = extension.sourceInfo
}

export function replaceModel(session: AgentSession, model: ScriptedModel): void {
  pi.replaceModel(session, model)
}

export function createMessageStream(): AssistantMessageEventStream {
  return pi.exports.createAssistantMessageEventStream()
}

export interface ToolCallDecision {
  toolCallId: string
  toolName: string
  blocked: boolean
  reason?: string
}

/**
 * Watches the decision of the `tool_call` hook Pi installs on the agent: a block is known from the hook,
 * never guessed from result text. A throwing handler blocks (Pi fails closed), so it is recorded as a block.
 */
export function watchToolCallDecisions(session: AgentSession, onDecision: (d: ToolCallDecision) => void): void {
  const installed = session.agent.beforeToolCall
  session.agent.beforeToolCall = async (context, signal) => {
    const { id: toolCallId, name: toolName } = context.toolCall
    try {
      const result = installed ? await installed(context, signal) : undefined
      if (result?.block) onDecision({ toolCallId, toolName, blocked: true, reason: result.reason ?? 'Tool execution was blocked' })
      else onDecision({ toolCallId, toolName, blocked: false })
      return result
    } catch (error) {
      onDecision({ toolCallId, toolName, blocked: true, reason: error instanceof Error ? error.message : String(error) })
      throw error
    }
  }
}

export interface UIBinding {
  ui: ExtensionUIContext
  /** Headless: extensions see `ctx.hasUI === false` while every UI call is still recorded. */
  headless: boolean
  onError: (error: ExtensionError) => void
}

/** Binds the UI and fires `session_start` and `resources_discover`, as Pi's modes do at startup. */
export async function bindSession(session: AgentSession, binding: UIBinding): Promise<void> {
  if (binding.headless) keepHeadless(session)
  await pi.bindExtensions(session, binding.ui, binding.onError, binding.headless)
}

// Pi derives hasUI from "is a UI bound"; the runner is rebuilt on reload, so the override follows it.
function keepHeadless(session: AgentSession): void {
  const apply = () => {
    session.extensionRunner.hasUI = () => false
  }
  apply()
  const reload = session.reload.bind(session)
  session.reload = async () => {
    await reload()
    apply()
  }
}

/** Fires `session_shutdown` (Pi's dispose does not) and releases the session. */
export async function shutdownSession(session: AgentSession): Promise<void> {
  try {
    await session.extensionRunner.emit({ type: 'session_shutdown', reason: 'quit' })
  } finally {
    session.dispose()
  }
}

/** Fires one extension event through Pi's runner and returns what the handlers returned. */
export async function emitExtensionEvent(session: AgentSession, type: string, payload: Record<string, unknown>): Promise<unknown> {
  const runner = session.extensionRunner
  const event = { ...payload, type } as never
  switch (type) {
    case 'tool_call':
      return runner.emitToolCall(event)
    case 'tool_result':
      return runner.emitToolResult(event)
    case 'user_bash':
      return runner.emitUserBash(event)
    case 'message_end':
      return runner.emitMessageEnd(event)
    case 'context':
      return runner.emitContext((payload.messages ?? []) as never)
    case 'before_provider_request':
      return runner.emitBeforeProviderRequest(payload.payload)
    case 'before_agent_start':
      return pi.emitBeforeAgentStart(
        runner,
        {
          prompt: String(payload.prompt ?? ''),
          images: payload.images,
          ...(payload.systemPrompt === undefined ? {} : { systemPrompt: String(payload.systemPrompt) }),
          ...(payload.systemPromptOptions === undefined ? {} : { systemPromptOptions: payload.systemPromptOptions }),
        },
        session,
      )
    case 'resources_discover':
      return runner.emitResourcesDiscover(String(payload.cwd ?? ''), (payload.reason ?? 'startup') as never)
    case 'input':
      return runner.emitInput(String(payload.text ?? ''), payload.images as never, (payload.source ?? 'interactive') as never)
    default:
      return runner.emit(event)
  }
}

/** Pi's theme is a process-wide singleton that throws until initialised: initialise it on first use. */
export function currentTheme(): Theme {
  const global = globalThis as Record<symbol, Theme | undefined>
  if (!global[pi.themeKey]) initTheme('dark')
  return global[pi.themeKey]!
}

/**
 * Puts Pi's process-wide state back to what a fresh import of Pi starts with: its registries (extensions
 * register providers there, and Pi never removes them on dispose) and the theme, initialised on first use.
 */
export function resetPiGlobals(): void {
  pi.resetGlobals()
}

/** A `pi.exec` result in the running line's shape (see PiAdapter.execResult). */
export const execResult: PiAdapter['execResult'] = (result) => pi.execResult(result)

/** Runs until the agent is idle and every event it emitted has reached the session's subscribers. */
export function trackSettling(session: AgentSession): () => Promise<void> {
  let emitted = 0
  let delivered = 0
  session.agent.subscribe((event) => {
    if (event.type === 'agent_end') emitted++
  })
  session.subscribe((event) => {
    if (event.type === 'agent_end') delivered++
  })
  return async () => {
    for (;;) {
      await session.agent.waitForIdle()
      // Extension handlers run on Pi's event queue; a turn they trigger starts after a macrotask at most.
      await new Promise((resolve) => setImmediate(resolve))
      if (!session.isStreaming && emitted === delivered) return
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
  }
}
