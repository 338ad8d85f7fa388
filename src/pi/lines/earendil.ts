// `@earendil-works/pi-coding-agent` (0.74 and later): the current line. Where its shapes differ from the
// harness's view (the 0.73 declarations), this module converts; every cast below is between two lines'
// declarations of the same runtime object, and the suite runs on this line to prove it.
// Releases of the line differ too (`npm run compat` runs the suite on each): what a release lacks is
// found by feature, never by version, so Pi is imported as a namespace (a named import of a missing
// export fails to link) and typed by the newest release's declarations, or by 0.73's where an older
// release kept 0.73's API.
import type * as PiModule from '@earendil-works/pi-coding-agent'
import type { AgentSession, ExtensionRunner, ExtensionUIContext, ModelRuntime } from '@earendil-works/pi-coding-agent'
import type * as PiAiModule from '@earendil-works/pi-ai'
import type { Model } from '@earendil-works/pi-ai'
import type * as PiAi073 from '@mariozechner/pi-ai'
import type { Context } from '@mariozechner/pi-ai'
import type * as PiAiOAuth073 from '@mariozechner/pi-ai/oauth'
import type { ExtensionUIContext as HarnessUIContext } from '@mariozechner/pi-coding-agent'
import type { PiAdapter, PiExports } from '../adapter.js'
import { findPiLine, type PiLineInfo } from '../line.js'
import { importPiEntry, importPiFile } from '../bundled.js'
import { authStorageModelServices, type AuthStorageClasses } from './auth-storage-models.js'
import { CALLER_STACK, callerStack } from '../caller.js'

// Pi's modules, from the run's bundle of Pi where it built one (findPiLine gives the line running-line.ts found).
const running = findPiLine()
const Pi = await importPiEntry<typeof PiModule>(running, 'pi-coding-agent')
const PiAi = await importPiEntry<typeof PiAiModule>(running, 'pi-ai')

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

// Until 0.79 the line kept 0.73's auth storage and model registry; 0.80 replaced both with ModelRuntime.
const legacyServices = Pi as unknown as Partial<AuthStorageClasses>

/** Providers without credentials, as Pi sees them with none stored or set and none in the environment. */
function withholdCredentials(runtime: ModelRuntime, withheld: ReadonlySet<string>): void {
  const { getAuth, checkAuth, hasConfiguredAuth, getProviderAuthStatus, getAvailable, getAvailableSnapshot } = runtime
  const providerOf = (target: string | { provider: string }) => (typeof target === 'string' ? target : target.provider)
  runtime.getAuth = ((target: Parameters<typeof getAuth>[0], overrides) =>
    withheld.has(providerOf(target)) ? Promise.resolve(undefined) : getAuth.call(runtime, target, overrides)) as typeof getAuth
  runtime.checkAuth = async (provider, options) => (withheld.has(provider) ? undefined : checkAuth.call(runtime, provider, options))
  runtime.hasConfiguredAuth = (provider) => !withheld.has(provider) && hasConfiguredAuth.call(runtime, provider)
  runtime.getProviderAuthStatus = (provider) => (withheld.has(provider) ? { configured: false } : getProviderAuthStatus.call(runtime, provider))
  runtime.getAvailable = async (provider, options) => (await getAvailable.call(runtime, provider, options)).filter((m) => !withheld.has(m.provider))
  runtime.getAvailableSnapshot = () => getAvailableSnapshot.call(runtime).filter((m) => !withheld.has(m.provider))
}

/**
 * Registers a provider as `registerProvider` does (the provider is composed, listed and configured at once),
 * without the full catalog refresh it then starts in the background: a rebuild of every built-in provider
 * and a credential check of each, about 7 ms of CPU on 1.6, half of what a whole session costs. The
 * session's runtime is offline with its credentials in memory and was created without a refresh, as the
 * harness creates it; Pi still refreshes whenever it asks (`getAvailable()`, an extension's own
 * `registerProvider`).
 */
function registerWithoutRefresh(runtime: ModelRuntime, provider: string, config: Parameters<ModelRuntime['registerProvider']>[1]): void {
  const own = Object.getOwnPropertyDescriptor(runtime, 'refresh')
  const skipped: Pick<ModelRuntime, 'refresh'> = { refresh: async () => ({ aborted: false, errors: new Map() }) }
  Object.assign(runtime, skipped)
  try {
    runtime.registerProvider(provider, config)
  } finally {
    // Back to what it was: the prototype's method, or an own one where a release defines it so.
    if (own) Object.defineProperty(runtime, 'refresh', own)
    else delete (runtime as Partial<Pick<ModelRuntime, 'refresh'>>).refresh
  }
}

/**
 * The caller's stack rides on each call through the runtime (what `ctx.modelRegistry.complete` uses), past
 * its awaits, to the scripted api's provider: who asked is known there.
 */
function tagCallers(runtime: ModelRuntime): void {
  const stream = runtime.stream.bind(runtime)
  const streamSimple = runtime.streamSimple.bind(runtime)
  runtime.stream = ((model, context, options) => stream(model, context, { ...options, [CALLER_STACK]: callerStack() } as never)) as typeof runtime.stream
  runtime.streamSimple = (model, context, options) => streamSimple(model, context, { ...options, [CALLER_STACK]: callerStack() } as never)
}

/** pi-ai's api provider registry (which answers `complete`/`stream` by api), wherever the release keeps it. */
interface ApiRegistry {
  getApiProvider: typeof PiAi073.getApiProvider
  registerApiProvider: typeof PiAi073.registerApiProvider
  /** Puts it, and the OAuth providers' where the release has one, back to the built-in state. */
  reset: () => void
}

async function apiRegistry(line: PiLineInfo): Promise<ApiRegistry> {
  const root = PiAi as unknown as Partial<typeof PiAi073>
  // Since 0.80 the old global API lives in pi-ai's compat entry, and OAuth providers have no registry of their own.
  if (typeof root.resetApiProviders !== 'function') {
    const compat = await importPiEntry<typeof PiAi073>(line, 'pi-ai/compat')
    return { getApiProvider: compat.getApiProvider, registerApiProvider: compat.registerApiProvider, reset: compat.resetApiProviders }
  }
  // Until 0.79 pi-ai's root held it, as on 0.73, with OAuth providers in a registry of their own.
  const oauth = await importPiEntry<Partial<typeof PiAiOAuth073>>(line, 'pi-ai/oauth')
  return {
    getApiProvider: root.getApiProvider!,
    registerApiProvider: root.registerApiProvider!,
    reset: () => {
      root.resetApiProviders!()
      oauth.resetOAuthProviders?.()
    },
  }
}

/**
 * How this release's `pi.exec` reports a process: since 1.5 the result says whether the output was cut;
 * since 1.6 a signal exit reads 128 + signal, as in a shell (before, 0). Nothing in Pi's exports shows
 * either, so the release number says (io-mocks.test.ts compares a mocked kill with Pi's own exec of a
 * real one, on every release `npm run compat` runs).
 */
function execConventions(line: PiLineInfo): { signalCode: boolean; truncated: boolean } {
  const [major = 0, minor = 0] = line.version.split('.').map(Number)
  const since = (sinceMajor: number, sinceMinor: number) => major > sinceMajor || (major === sinceMajor && minor >= sinceMinor)
  return { signalCode: since(1, 6), truncated: since(1, 5) }
}

// 0.86 changed what providers are handed: a transcript whose system messages carry the prompt and tools,
// where 0.73's request (prompt, messages, tools) came before. The harness records the latter.
// One pass splits the transcript: Pi's readers of the prompt and tools look at system messages alone, so
// they replay the few system messages instead of walking the whole transcript twice more per request.
function asRequest(context: unknown): Context {
  if (typeof PiAi.getCurrentSystemPrompt !== 'function') return context as Context
  type Transcript = Parameters<typeof PiAi.getCurrentSystemPrompt>[0]
  const system: Transcript[number][] = []
  const messages: Transcript[number][] = []
  for (const message of (context as { messages: Transcript }).messages) (message.role === 'system' ? system : messages).push(message)
  return { systemPrompt: PiAi.getCurrentSystemPrompt(system), messages, tools: PiAi.getCurrentTools(system) } as unknown as Context
}

/**
 * What 1.x's interactive mode draws with that Pi's entry does not export: the built-in tools' renderers (kept
 * apart from the tools since 1.x) and the custom entry component. Found by file: a release without one leaves it out.
 */
async function interactiveParts(line: PiLineInfo): Promise<Pick<PiAdapter, 'withBuiltInRenderers' | 'CustomEntryComponent'>> {
  const load = async <T>(file: string): Promise<Partial<T>> => (await importPiFile<Partial<T>>(line, `dist/${file}`)) ?? {}
  type Renderers = { withBuiltInRenderers: PiAdapter['withBuiltInRenderers'] }
  const { withBuiltInRenderers } = await load<Renderers>('core/tools/renderers/index.js')
  const { CustomEntryComponent } = await load<Pick<PiAdapter, 'CustomEntryComponent'>>('modes/interactive/components/custom-entry.js')
  return { withBuiltInRenderers: withBuiltInRenderers ?? ((_toolName, definition) => definition), CustomEntryComponent }
}

export async function createAdapter(line: PiLineInfo): Promise<PiAdapter> {
  const exports = {
    createAgentSession: Pi.createAgentSession,
    createAgentSessionRuntime: Pi.createAgentSessionRuntime,
    DefaultResourceLoader: Pi.DefaultResourceLoader,
    SettingsManager: Pi.SettingsManager,
    SessionManager: Pi.SessionManager,
    createSyntheticSourceInfo: Pi.createSyntheticSourceInfo,
    initTheme: Pi.initTheme,
    CustomMessageComponent: Pi.CustomMessageComponent,
    ToolExecutionComponent: Pi.ToolExecutionComponent,
    createAssistantMessageEventStream: PiAi.createAssistantMessageEventStream,
  }
  // In Pi's order; a factory the release lacks is left out (PowerShell came in 0.84).
  const toolFactories = {
    read: Pi.createReadToolDefinition,
    bash: Pi.createBashToolDefinition,
    powershell: (Pi as Partial<typeof Pi>).createPowerShellToolDefinition,
    edit: Pi.createEditToolDefinition,
    write: Pi.createWriteToolDefinition,
    grep: Pi.createGrepToolDefinition,
    find: Pi.createFindToolDefinition,
    ls: Pi.createLsToolDefinition,
  }
  const registry = await apiRegistry(line)
  const interactive = await interactiveParts(line)
  let scriptedApi: unknown
  const exec = execConventions(line)
  return {
    line,
    // Same names and calls; the classes differ in private members, which the compiler compares by name.
    exports: exports as unknown as PiExports,
    builtinTools: Object.fromEntries(Object.entries(toolFactories).filter(([, create]) => typeof create === 'function')) as unknown as PiAdapter['builtinTools'],
    async modelServices(model, available, withheld, modelsPath) {
      if (legacyServices.AuthStorage && legacyServices.ModelRegistry) {
        return authStorageModelServices(legacyServices as AuthStorageClasses, model, available as never, withheld, modelsPath) as never
      }
      // Since 0.80: credentials in memory, models.json only where the session has one, no catalog refresh over the network.
      const modelRuntime = await Pi.ModelRuntime.create({
        credentials: new PiAi.InMemoryCredentialStore(),
        modelsPath: modelsPath ?? null,
        allowModelNetwork: false,
        refreshOnCreate: false,
      })
      // prompt() refuses a model whose provider has no key; the key is never sent anywhere. A provider
      // Pi does not know (the scripted one) is registered as an extension registers its own.
      for (const provider of new Set([model, ...(available ?? [])].map((m) => m.provider))) {
        if (!modelRuntime.getProvider(provider)) registerWithoutRefresh(modelRuntime, provider, { baseUrl: model.baseUrl, apiKey: 'scripted', api: model.api })
        else if (!withheld.includes(provider)) await modelRuntime.setRuntimeApiKey(provider, 'scripted')
      }
      if (available) listModels(modelRuntime, available as Model<string>[])
      if (withheld.length > 0) withholdCredentials(modelRuntime, new Set(withheld))
      tagCallers(modelRuntime)
      return { modelRuntime } as never
    },
    ensureScriptedApi(api, stream) {
      if (scriptedApi !== undefined && registry.getApiProvider(api) === scriptedApi) return
      const answer = (model: Model<string>, context: unknown, options?: object) => stream(model as never, asRequest(context), options as never) as never
      registry.registerApiProvider({ api, stream: answer, streamSimple: answer }, 'vitest-environment-pi')
      scriptedApi = registry.getApiProvider(api)
    },
    // 1.x's discovery also yields the built-in extensions and the packages that failed to install: it runs.
    skipFirstDiscovery() {},
    asRequest,
    replaceModel(session, model) {
      const agent = (session as unknown as AgentSession).agent
      const stream: typeof agent.streamFunction = (asked, context, options) => {
        const onPayload = options?.onPayload
        return model(asRequest(context), options?.signal, onPayload && (async (payload) => onPayload(payload, asked))) as never
      }
      // The agent's stream function was `streamFn` until 0.82, as on 0.73.
      if ('streamFunction' in agent) agent.streamFunction = stream
      else session.agent.streamFn = stream as never
    },
    emitBeforeAgentStart(runner, event, session) {
      const current = runner as unknown as ExtensionRunner
      // Until 0.85, 0.73's call: (prompt, images, the prompt handlers see, options).
      if (current.emitBeforeAgentStart.length === 4) {
        return runner.emitBeforeAgentStart(event.prompt, event.images as never, event.systemPrompt ?? session.systemPrompt, (event.systemPromptOptions ?? {}) as never)
      }
      // Since 0.86 the prompt is built from options (the session's own unless given); a given prompt is imposed.
      const given = { ...current.createCommandContext().getSystemPromptOptions(), ...(event.systemPromptOptions as object) }
      const options = event.systemPrompt === undefined ? given : { ...given, forceSystemPrompt: event.systemPrompt }
      // 0.86 and 0.87 take (prompt, images, options); 1.x takes the prompt as a trigger.
      if (current.emitBeforeAgentStart.length === 3) {
        return (runner.emitBeforeAgentStart as unknown as (prompt: string, images: unknown, options: object) => Promise<unknown>)(event.prompt, event.images, options)
      }
      return current.emitBeforeAgentStart({ messageType: 'user' as const, prompt: event.prompt, images: event.images as never }, options)
    },
    bindExtensions(session, uiContext, onError, headless) {
      // ctx.mode (1.x; older releases ignore it): a session with a UI is the interactive one; headless is `pi -p`.
      const mode = headless ? 'print' : 'tui'
      return (session as unknown as AgentSession).bindExtensions({ uiContext: uiContext as unknown as ExtensionUIContext, onError: onError as never, mode })
    },
    execResult: ({ code, killed, ...rest }) =>
      ({ ...rest, killed, code: code ?? (killed && exec.signalCode ? 143 : 0), ...(exec.truncated ? { truncated: false } : {}) }) as never,
    themeKey: THEME_KEYS[0]!,
    resetGlobals() {
      registry.reset()
      for (const key of THEME_KEYS) delete (globalThis as Record<symbol, unknown>)[key]
    },
    // 1.x's interactive mode builds the main-screen TUI unless the user asks for fullscreen; releases before
    // the main screen (0.74 to 0.8x) have the one TUI class.
    createTui(piTui, terminal) {
      const tui = piTui as unknown as typeof import('@earendil-works/pi-tui') & { TUI?: typeof import('@mariozechner/pi-tui').TUI }
      const Screen = tui.TuiMainScreen ?? tui.TUI
      return new Screen(terminal as never) as unknown as ReturnType<PiAdapter['createTui']>
    },
    // 1.x builds its system prompt when a run starts, not while the session is made: nothing to hand it.
    packageDir: () => undefined,
    ...interactive,
  }
}
