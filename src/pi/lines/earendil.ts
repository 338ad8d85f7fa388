// `@earendil-works/pi-coding-agent` (0.74 and later, Node >=22.19): the current line. Where its shapes
// differ from the harness's view (the 0.73 declarations), this module converts; every cast below is
// between two lines' declarations of the same runtime object, and the suite runs on this line to prove it.
import {
  createAgentSession,
  createBashToolDefinition,
  createEditToolDefinition,
  createFindToolDefinition,
  createGrepToolDefinition,
  createLsToolDefinition,
  createPowerShellToolDefinition,
  createReadToolDefinition,
  createSyntheticSourceInfo,
  createWriteToolDefinition,
  DefaultResourceLoader,
  initTheme,
  ModelRuntime,
  SessionManager,
  SettingsManager,
  type AgentSession,
  type ExtensionRunner,
  type ExtensionUIContext,
} from '@earendil-works/pi-coding-agent'
import {
  createAssistantMessageEventStream,
  getCurrentSystemPrompt,
  getCurrentTools,
  InMemoryCredentialStore,
  type Model,
} from '@earendil-works/pi-ai'
import { resetApiProviders } from '@earendil-works/pi-ai/compat'
import type { Context } from '@mariozechner/pi-ai'
import type { ExtensionUIContext as HarnessUIContext } from '@mariozechner/pi-coding-agent'
import type { PiAdapter, PiExports } from '../adapter.js'
import type { PiLineInfo } from '../line.js'

// Pi 1.x writes its theme under both scopes' keys, so extensions built for either find it.
const THEME_KEYS = [Symbol.for('@earendil-works/pi-coding-agent:theme'), Symbol.for('@mariozechner/pi-coding-agent:theme')]

// The harness's UI has every member of this line's UI context: a member Pi adds fails the build here,
// naming it. (Signatures are checked on the harness's own line; here they differ only in each line's
// own TUI and Theme classes.)
type MissingUIMembers = Exclude<keyof ExtensionUIContext, keyof HarnessUIContext>
export const everyUIMember: [MissingUIMembers] extends [never] ? true : MissingUIMembers = true

/**
 * The runtime's catalog, replaced by exactly `models`, each with a key: extensions see them through
 * `ctx.modelRegistry` (built on the runtime), and the session switches between them without a login.
 */
function listModels(runtime: ModelRuntime, models: Model<string>[]): void {
  const ofProvider = (provider?: string) => models.filter((m) => provider === undefined || m.provider === provider)
  const listed = new Set(models.map((m) => m.provider))
  const configured = runtime.hasConfiguredAuth.bind(runtime)
  const checkAuth = runtime.checkAuth.bind(runtime)
  runtime.getModels = runtime.getAllModels = ofProvider
  runtime.getAvailable = async (provider) => ofProvider(provider)
  runtime.getAvailableSnapshot = () => [...models]
  runtime.getModel = (provider, id) => models.find((m) => m.provider === provider && m.id === id)
  runtime.hasConfiguredAuth = (provider) => listed.has(provider) || configured(provider)
  runtime.checkAuth = async (provider, options) => (listed.has(provider) ? { type: 'api_key' } : checkAuth(provider, options))
}

export function createAdapter(line: PiLineInfo): PiAdapter {
  const exports = {
    createAgentSession,
    DefaultResourceLoader,
    SettingsManager,
    SessionManager,
    createSyntheticSourceInfo,
    initTheme,
    createAssistantMessageEventStream,
  }
  return {
    line,
    // Same names and calls; the classes differ in private members, which the compiler compares by name.
    exports: exports as unknown as PiExports,
    // Pi 1.x adds PowerShell to its built-in tools.
    builtinTools: {
      read: createReadToolDefinition,
      bash: createBashToolDefinition,
      powershell: createPowerShellToolDefinition,
      edit: createEditToolDefinition,
      write: createWriteToolDefinition,
      grep: createGrepToolDefinition,
      find: createFindToolDefinition,
      ls: createLsToolDefinition,
    } as unknown as PiAdapter['builtinTools'],
    async modelServices(model, available) {
      // Credentials in memory, no models.json, no catalog refresh over the network.
      const modelRuntime = await ModelRuntime.create({
        credentials: new InMemoryCredentialStore(),
        modelsPath: null,
        allowModelNetwork: false,
        refreshOnCreate: false,
      })
      // prompt() refuses a model whose provider has no key; the key is never sent anywhere. A provider
      // Pi does not know (the scripted one) is registered as an extension registers its own.
      if (modelRuntime.getProvider(model.provider)) await modelRuntime.setRuntimeApiKey(model.provider, 'scripted')
      else modelRuntime.registerProvider(model.provider, { baseUrl: model.baseUrl, apiKey: 'scripted', api: model.api })
      if (available) listModels(modelRuntime, available as Model<string>[])
      return { modelRuntime } as never
    },
    replaceModel(session, model) {
      const agent = (session as unknown as AgentSession).agent
      // 1.x hands providers a transcript whose system messages carry the prompt and tools; the
      // harness records the request as prompt, conversation and tool list, as 0.73 sent it.
      agent.streamFunction = (_model, transcript, options) => {
        const context = {
          systemPrompt: getCurrentSystemPrompt(transcript.messages),
          messages: transcript.messages.filter((message) => message.role !== 'system'),
          tools: getCurrentTools(transcript.messages),
        } as unknown as Context
        return model(context, options?.signal) as never
      }
    },
    emitBeforeAgentStart(runner, event) {
      const current = runner as unknown as ExtensionRunner
      // 1.x builds the prompt from options (the session's own unless given); a given prompt is imposed.
      const options = { ...current.createCommandContext().getSystemPromptOptions(), ...(event.systemPromptOptions as object) }
      const trigger = { messageType: 'user' as const, prompt: event.prompt, images: event.images as never }
      return current.emitBeforeAgentStart(trigger, event.systemPrompt === undefined ? options : { ...options, forceSystemPrompt: event.systemPrompt })
    },
    bindExtensions(session, uiContext, onError, headless) {
      // ctx.mode (1.x): a session with a UI is the interactive one; headless is `pi -p`.
      const mode = headless ? 'print' : 'tui'
      return (session as unknown as AgentSession).bindExtensions({ uiContext: uiContext as unknown as ExtensionUIContext, onError: onError as never, mode })
    },
    // 1.x reports a signal exit as 128 + signal, as a shell does, and says whether output was cut.
    execResult: ({ code, killed, ...rest }) => ({ ...rest, killed, code: code ?? (killed ? 143 : 0), truncated: false }) as never,
    themeKey: THEME_KEYS[0]!,
    resetGlobals() {
      resetApiProviders()
      for (const key of THEME_KEYS) delete (globalThis as Record<symbol, unknown>)[key]
    },
    // 1.x's interactive mode builds the main-screen TUI unless the user asks for fullscreen.
    createTui: (piTui, terminal) =>
      new (piTui as unknown as typeof import('@earendil-works/pi-tui')).TuiMainScreen(terminal as never) as unknown as ReturnType<PiAdapter['createTui']>,
  }
}
