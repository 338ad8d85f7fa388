// What differs between Pi's lines, as one interface: src/pi/index.ts takes every Pi value from it.
// Types are the 0.73 line's declarations, the harness's one view of Pi; the newer line's adapter
// converts at its boundary where its shapes differ.
import type * as CodingAgent from '@mariozechner/pi-coding-agent'
import type * as PiAi from '@mariozechner/pi-ai'
import type { AgentSession, CreateAgentSessionOptions, ExecResult, ExtensionError, ExtensionRunner, ExtensionUIContext, Theme, ToolDefinition } from '@mariozechner/pi-coding-agent'
import type { AssistantMessageEventStream, Context, Model } from '@mariozechner/pi-ai'
import type { Component, Terminal, TUI } from '@mariozechner/pi-tui'
import type { PiLineInfo } from './line.js'

/** Pi's exports that keep their names and shapes on every line. */
export type PiExports = Pick<
  typeof CodingAgent,
  | 'createAgentSession'
  | 'createAgentSessionRuntime'
  | 'DefaultResourceLoader'
  | 'SettingsManager'
  | 'SessionManager'
  | 'createSyntheticSourceInfo'
  | 'initTheme'
  | 'CustomMessageComponent'
  | 'ToolExecutionComponent'
> &
  Pick<typeof PiAi, 'createAssistantMessageEventStream'>

/** The stream function Pi calls instead of a provider, given the request as system prompt, messages and tools. */
export type ScriptedModel = (context: Context, signal: AbortSignal | undefined, payload?: Record<string, unknown>) => AssistantMessageEventStream

/** Pi's `onPayload` of a request: the `before_provider_request` handlers, given the provider's payload, return the one sent. */
export type PayloadHook = (payload: unknown) => Promise<unknown>

/** The stream function a line's agent calls instead of a provider: the request, its signal and its payload hook. */
export type ProviderStand = (context: Context, signal: AbortSignal | undefined, onPayload: PayloadHook | undefined) => AssistantMessageEventStream | Promise<AssistantMessageEventStream>

/** pi-ai's provider for the scripted api: a model call made outside the agent loop (options carry its caller). */
export type ScriptedApiStream = (
  model: Model<string>,
  context: Context,
  options: { [key: symbol]: string | undefined; signal?: AbortSignal } | undefined,
) => AssistantMessageEventStream

export interface BeforeAgentStartPayload {
  prompt: string
  images?: unknown
  /** The prompt handlers see; unset: the session's own. */
  systemPrompt?: string
  systemPromptOptions?: unknown
}

export interface PiAdapter {
  line: PiLineInfo
  exports: PiExports
  /** The tools Pi builds into every session, in Pi's order, with the factories of their real definitions. */
  builtinTools: Record<string, (cwd: string) => ToolDefinition>
  /**
   * The createAgentSession options that give the providers of `model` and `available` a key (never sent
   * anywhere: the model is scripted), except those `withheld`, which have none as in Pi without a login,
   * whatever the environment holds; and, when given, list exactly `available` as the registry's models.
   * Nothing touches disk but `modelsPath`, a models.json that defines models as in Pi.
   */
  modelServices(
    model: Model<string>,
    available: Model<string>[] | undefined,
    withheld: readonly string[],
    modelsPath?: string,
  ): Promise<Partial<CreateAgentSessionOptions>>
  /**
   * Registers `stream` as the provider of `api` in pi-ai's registry (the one `complete(model, …)` and, on
   * 1.x, the model runtime read), unless the registry still holds the one registered last.
   */
  ensureScriptedApi(api: string, stream: ScriptedApiStream): void
  /**
   * Lets `loader`'s next reload skip its discovery on disk where, under DISCOVER_NOTHING, the line's loader
   * drops everything discovery finds. Called for each instance's loader of a session that does not discover;
   * later reloads discover as Pi does.
   */
  skipFirstDiscovery(loader: InstanceType<PiExports['DefaultResourceLoader']>): void
  /** What this line hands a provider, as the request the harness records (system prompt, messages, tools). */
  asRequest(context: unknown): Context
  /** Makes the session's agent call `model` instead of a provider. */
  replaceModel(session: AgentSession, model: ProviderStand): void
  /** Fires `before_agent_start` as the session does before a prompt. */
  emitBeforeAgentStart(runner: ExtensionRunner, event: BeforeAgentStartPayload, session: AgentSession): Promise<unknown>
  /** Binds the UI (the compiler checks it is a whole UI context of this line) and fires `session_start`. */
  bindExtensions(session: AgentSession, uiContext: ExtensionUIContext, onError: (error: ExtensionError) => void, headless: boolean): Promise<void>
  /** The globalThis key that holds Pi's theme once initialised. */
  themeKey: symbol
  /** What this line's `pi.exec` resolves with for such a process (no code: a signal exit if killed, else 0). */
  execResult(result: { stdout: string; stderr: string; code: number | undefined; killed: boolean }): ExecResult
  /** Puts Pi's process-wide registries back to their built-in state and forgets the theme. */
  resetGlobals(): void
  /** The TUI this line's interactive mode builds (on `terminal`), from the line's own pi-tui module. */
  createTui(piTui: Record<string, unknown>, terminal: Terminal): TUI
  /**
   * Pi's own directory as Pi finds it with PI_PACKAGE_DIR unset (climbing from its modules to a
   * package.json), by Pi's own function, where the session's construction builds a system prompt that
   * names it; else undefined.
   */
  packageDir(): string | undefined
  /**
   * The renderers Pi's interactive mode draws a call of a built-in tool with when its definition has none of
   * its own (1.x keeps them apart from the tools); the definition as it is where the line's component finds
   * them itself (0.73).
   */
  withBuiltInRenderers(toolName: string, definition: ToolDefinition | undefined): ToolDefinition | undefined
  /** Pi's component for a custom entry with an entry renderer (`pi.registerEntryRenderer`, 1.x); undefined where the line has none. */
  CustomEntryComponent: CustomEntryComponentClass | undefined
}

/** A custom entry (`pi.appendEntry`) as an entry renderer gets it. */
export interface CustomEntry {
  type: 'custom'
  id: string
  customType: string
  data?: unknown
}

/** An extension's entry renderer (1.x's `EntryRenderer`, in the harness's view of Pi's TUI and theme). */
export type EntryRenderer = (entry: CustomEntry, options: { expanded: boolean }, theme: Theme) => Component | undefined

/** 1.x's `CustomEntryComponent`: the entry as its renderer draws it, or nothing (`hasContent()` false) when it returns none. */
export type CustomEntryComponentClass = new (entry: CustomEntry, renderer: EntryRenderer) => Component & {
  setExpanded(expanded: boolean): void
  hasContent(): boolean
}
