// `@mariozechner/pi-coding-agent` (0.73 and earlier, Node >=20.6): the line the harness's types come from.
import type * as PiModule from '@mariozechner/pi-coding-agent'
import type * as PiAiModule from '@mariozechner/pi-ai'
import type { Context, Model } from '@mariozechner/pi-ai'
import type * as PiAiOAuthModule from '@mariozechner/pi-ai/oauth'
import { importPiEntry, importPiFile } from '../bundled.js'
import type { PiAdapter } from '../adapter.js'
import { authStorageModelServices } from './auth-storage-models.js'
import { findPiLine, type PiLineInfo } from '../line.js'

// Pi's modules, from the run's bundle of Pi where it built one (findPiLine gives the line running-line.ts found).
const running = findPiLine()
const {
  AuthStorage,
  createAgentSession,
  createAgentSessionRuntime,
  createBashToolDefinition,
  createEditToolDefinition,
  createFindToolDefinition,
  createGrepToolDefinition,
  createLsToolDefinition,
  createReadToolDefinition,
  createSyntheticSourceInfo,
  createWriteToolDefinition,
  CustomMessageComponent,
  DefaultResourceLoader,
  initTheme,
  ModelRegistry,
  SessionManager,
  SettingsManager,
  ToolExecutionComponent,
} = await importPiEntry<typeof PiModule>(running, 'pi-coding-agent')
const { createAssistantMessageEventStream, getApiProvider, registerApiProvider, resetApiProviders } = await importPiEntry<typeof PiAiModule>(running, 'pi-ai')
const { resetOAuthProviders } = await importPiEntry<typeof PiAiOAuthModule>(running, 'pi-ai/oauth')

const THEME_KEY = Symbol.for('@mariozechner/pi-coding-agent:theme')

export async function createAdapter(line: PiLineInfo): Promise<PiAdapter> {
  const config = await piConfig(line)
  let scriptedApi: unknown
  return {
    line,
    exports: {
      createAgentSession,
      createAgentSessionRuntime,
      DefaultResourceLoader,
      SettingsManager,
      SessionManager,
      createSyntheticSourceInfo,
      initTheme,
      CustomMessageComponent,
      ToolExecutionComponent,
      createAssistantMessageEventStream,
    },
    // Tool definitions are generic in their parameters and details; the harness reads them as any tool.
    builtinTools: {
      read: createReadToolDefinition,
      bash: createBashToolDefinition,
      edit: createEditToolDefinition,
      write: createWriteToolDefinition,
      grep: createGrepToolDefinition,
      find: createFindToolDefinition,
      ls: createLsToolDefinition,
    } as unknown as PiAdapter['builtinTools'],
    async modelServices(model, available, withheld, modelsPath) {
      return authStorageModelServices({ AuthStorage, ModelRegistry }, model, available, withheld, modelsPath)
    },
    ensureScriptedApi(api, stream) {
      if (scriptedApi !== undefined && getApiProvider(api) === scriptedApi) return
      const answer = (model: Model<string>, context: Parameters<typeof stream>[1], options?: object) => stream(model, context, options as never)
      registerApiProvider({ api, stream: answer, streamSimple: answer }, 'vitest-environment-pi')
      scriptedApi = getApiProvider(api)
    },
    // Each reload asks the package manager to discover packages, extensions, skills, prompts and themes in the
    // cwd, the agent dir and the cwd's ancestors (0.12–0.16 ms a session, over empty dirs or seeded ones), which
    // the loader drops under DISCOVER_NOTHING. The member is private, but 0.73.1 is the last release of this package.
    skipFirstDiscovery(loader) {
      const manager = (loader as unknown as { packageManager?: { resolve?: () => Promise<unknown> } }).packageManager
      if (typeof manager?.resolve !== 'function') return
      manager.resolve = async () => {
        // Gone: the next reload resolves with the prototype's method, as Pi does.
        delete manager.resolve
        return { extensions: [], skills: [], prompts: [], themes: [] }
      }
    },
    asRequest: (context) => context as Context,
    replaceModel(session, model) {
      session.agent.streamFn = (asked, context, options) => {
        const onPayload = options?.onPayload
        return model(context, options?.signal, onPayload && (async (payload) => onPayload(payload, asked)))
      }
    },
    emitBeforeAgentStart(runner, event, session) {
      return runner.emitBeforeAgentStart(event.prompt, event.images as never, event.systemPrompt ?? session.systemPrompt, (event.systemPromptOptions ?? {}) as never)
    },
    bindExtensions(session, uiContext, onError) {
      return session.bindExtensions({ uiContext, onError })
    },
    // A signal exit has no code; 0.73 reports `code ?? 0`.
    execResult: ({ code, ...rest }) => ({ ...rest, code: code ?? 0 }),
    themeKey: THEME_KEY,
    resetGlobals() {
      resetApiProviders()
      resetOAuthProviders()
      delete (globalThis as Record<symbol, unknown>)[THEME_KEY]
    },
    createTui: (piTui, terminal) => new (piTui as typeof import('@mariozechner/pi-tui')).TUI(terminal),
    packageDir: () => config?.getPackageDir(),
    // 0.73's ToolExecutionComponent looks up a built-in tool's renderers itself; it has no entry renderers.
    withBuiltInRenderers: (_toolName, definition) => definition,
    CustomEntryComponent: undefined,
  }
}

// 0.73 keeps getPackageDir out of its public entry; its module is the one Pi's own code imports.
async function piConfig(line: PiLineInfo): Promise<{ getPackageDir(): string } | undefined> {
  try {
    return await importPiFile<{ getPackageDir(): string }>(line, 'dist/config.js')
  } catch {
    return undefined
  }
}
