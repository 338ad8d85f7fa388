// A real AgentSession for a test: settings on the session's own files, the other managers in memory, nothing
// discovered from disk unless asked (and then only inside the session's home and cwd), the extensions handed
// to Pi's loader as factories, and the model a scripted one that is never contacted.
import type {
  AgentSession,
  AgentSessionRuntime,
  AgentSessionServices,
  DefaultResourceLoader,
  ExtensionFactory,
  SessionManager,
  SessionStartEvent,
  SettingsManager,
  ToolDefinition,
} from '@mariozechner/pi-coding-agent'
import type { Model } from '@mariozechner/pi-ai'
import { existsSync } from 'node:fs'
import { isAbsolute, join, relative } from 'node:path'
import { setEnv } from '../shared/env.js'
import { adapter, DISCOVER_NOTHING, PiResourceLoader } from './running-line.js'
import { sessionSettings } from './settings.js'
import { ensureScriptedApi, SCRIPTED_API } from './scripted-api.js'

const { createAgentSession, createAgentSessionRuntime, SessionManager: Sessions, createSyntheticSourceInfo } = adapter.exports

const SCRIPTED_PROVIDER = 'vitest-environment-pi'

/** The model a scripted session reports; it is never contacted (the stream function replaces it). */
export const SCRIPTED_MODEL: Model<string> = {
  id: 'scripted',
  name: 'Scripted model',
  api: SCRIPTED_API,
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
  /** Pi loaded the extensions again (/reload, /new, /resume, /fork): a new instance of them begins. */
  onReload?: () => void
  /** The factories for each later instance of the session (/new, /resume, /fork): loaded again, as Pi loads them. */
  reloadExtensions: () => Promise<{ factory: ExtensionFactory; path: string }[]>
  /** SDK tools, given the names the extensions registered (an SDK tool would replace theirs). */
  customToolsFor: (extensionTools: ReadonlySet<string>) => ToolDefinition[]
  tools?: string[]
  systemPrompt?: string
  /** The model the session reports (never contacted); defaults to SCRIPTED_MODEL. */
  model?: Model<string>
  thinkingLevel?: 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh'
  /** What the model registry lists, instead of Pi's built-in catalog. */
  availableModels?: Model<string>[]
  /** Providers without credentials (every other provider of the session's models has a key). */
  withoutCredentials?: readonly string[]
  /** The agent dir was just made empty: no models.json there to read. */
  freshAgentDir?: boolean
  /** Pi discovers extensions, skills, prompts, themes and context files as on start, inside `home` and `cwd` only. */
  discover?: { home: string }
  /** Pre-seeds the session's entries before Pi restores its transcript from them. */
  seed?: (manager: SessionManager) => void
  /** Extension flag values, as `pi --name value` sets them; each must be registered by an extension. */
  flags?: Record<string, boolean | string>
}

export interface PiSessionResult {
  /** Pi's own runtime, which replaces the session on /new, /resume and /fork. */
  runtime: AgentSessionRuntime
  session: AgentSession
  loadErrors: { path: string; error: string }[]
  extensionTools: ReadonlySet<string>
}

// Pi's default active set; SDK tools would otherwise all start active.
const DEFAULT_ACTIVE_TOOLS = ['read', 'bash', 'edit', 'write']

/**
 * A real AgentSession with every manager in memory and nothing discovered from disk, inside Pi's own session
 * runtime: /new, /resume and /fork replace it as in Pi, each instance built by the same steps.
 */
export async function createPiSession(options: PiSessionOptions): Promise<PiSessionResult> {
  const model = options.model ?? SCRIPTED_MODEL
  const sessionManager = Sessions.inMemory(options.cwd)
  // In memory, but a /new or /fork from it writes its file where Pi would: in the session's own agent dir.
  const sessionDir = join(options.agentDir, 'sessions')
  sessionManager.getSessionDir = () => sessionDir
  options.seed?.(sessionManager)
  let first: Omit<PiSessionResult, 'runtime'> | undefined
  const runtime = await createAgentSessionRuntime(
    async ({ cwd, agentDir, sessionManager: manager, sessionStartEvent }) => {
      if (first !== undefined) options.onReload?.()
      const extensions = first === undefined ? options.extensions : await options.reloadExtensions()
      // Each instance reads its settings and models.json from its own files, as Pi's services do; only the
      // first starts in an agent dir known to be fresh.
      const freshAgentDir = first === undefined && options.freshAgentDir === true
      const settingsManager = sessionSettings(cwd, agentDir)
      const modelsJson = join(agentDir, 'models.json')
      const modelsPath = !freshAgentDir && existsSync(modelsJson) ? modelsJson : undefined
      const modelServices = await adapter.modelServices(model, options.availableModels, options.withoutCredentials ?? [], modelsPath)
      const built = await buildSession({ ...options, cwd, agentDir }, extensions, {
        model,
        settingsManager,
        modelServices,
        sessionManager: manager,
        ...(sessionStartEvent === undefined ? {} : { sessionStartEvent }),
      })
      if (first === undefined) first = built
      else if (built.loadErrors.length > 0) throw new Error(`Extension failed to load:\n${built.loadErrors.map((e) => `  ${e.path}: ${e.error}`).join('\n')}`)
      const services = { cwd, agentDir, settingsManager, resourceLoader: built.resourceLoader, diagnostics: [], ...modelServices } as AgentSessionServices
      return { session: built.session, extensionsResult: built.resourceLoader.getExtensions(), services, diagnostics: [] }
    },
    { cwd: options.cwd, agentDir: options.agentDir, sessionManager },
  )
  return { runtime, session: first!.session, loadErrors: first!.loadErrors, extensionTools: first!.extensionTools }
}

interface Shared {
  model: Model<string>
  settingsManager: SettingsManager
  modelServices: Awaited<ReturnType<typeof adapter.modelServices>>
  sessionManager: SessionManager
  sessionStartEvent?: SessionStartEvent
}

/** One instance of the session: its resource loader (the extensions' factories run), its AgentSession. */
async function buildSession(
  options: PiSessionOptions,
  extensions: { factory: ExtensionFactory; path: string }[],
  { model, settingsManager, modelServices, sessionManager, sessionStartEvent }: Shared,
) {
  const paths = extensions.map((e) => e.path)
  const resourceLoader = new PiResourceLoader({
    cwd: options.cwd,
    agentDir: options.agentDir,
    settingsManager,
    extensionFactories: extensions.map((e) => e.factory),
    // Inline factories are named <inline:N> by Pi; give them back the file they came from.
    extensionsOverride: (base) => {
      // Pi resets pi-ai's api registry right before it reloads resources: the scripted api goes back first.
      ensureScriptedApi()
      for (const extension of base.extensions) renameExtension(extension, paths[inlineIndex(extension.path)])
      for (const error of base.errors) error.path = paths[inlineIndex(error.path)] ?? error.path
      return base
    },
    ...(options.discover ? withinSessionDirs(options.cwd, options.discover.home) : DISCOVER_NOTHING),
    ...(options.systemPrompt === undefined ? {} : { systemPromptOverride: () => options.systemPrompt }),
  })
  if (!options.discover) adapter.skipFirstDiscovery(resourceLoader)
  await resourceLoader.reload()
  // From now on each load is a new instance of the extensions: session.reload() loads again through this loader.
  const reloadResources = resourceLoader.reload.bind(resourceLoader)
  resourceLoader.reload = async () => {
    options.onReload?.()
    // As Pi's /reload, which imports the extension files again: each factory runs with fresh module state.
    const fresh = await options.reloadExtensions()
    ;(resourceLoader as unknown as { extensionFactories: ExtensionFactory[] }).extensionFactories = fresh.map((e) => e.factory)
    await reloadResources()
  }
  const loaded = resourceLoader.getExtensions()
  const loadErrors = loaded.errors.map((e) => ({ path: e.path, error: e.error }))
  const extensionTools = new Set(loaded.extensions.flatMap((extension) => [...extension.tools.keys()]))
  if (options.flags && loadErrors.length === 0) setFlags(loaded, options.flags)
  const customTools = options.customToolsFor(extensionTools)
  const { session } = await knowingPackageDir(() =>
    createAgentSession({
      cwd: options.cwd,
      agentDir: options.agentDir,
      model,
      thinkingLevel: options.thinkingLevel ?? 'off',
      ...modelServices,
      settingsManager,
      resourceLoader,
      sessionManager,
      ...(sessionStartEvent === undefined ? {} : { sessionStartEvent }),
      customTools,
      ...(options.tools ? { tools: options.tools } : {}),
    }),
  )
  if (!options.tools) knowingPackageDir(() => session.setActiveToolsByName([...new Set([...DEFAULT_ACTIVE_TOOLS, ...extensionTools])]))
  return { session, loadErrors, extensionTools, resourceLoader }
}

let packageDir: string | undefined

/**
 * Runs `build` with PI_PACKAGE_DIR set to the directory Pi would find without it. On 0.73 each build of the
 * system prompt climbs from Pi's modules to its package.json three times (for the docs paths it names), two
 * `existsSync` calls each, and the session's construction builds it twice here: about 45 µs a session. The
 * directory cannot change in a process. The variable is set only while Pi builds synchronously: no other
 * code runs meanwhile, so no extension sees it and no child process inherits it (another Pi would take this
 * one's docs and version). A value the user set stays.
 */
function knowingPackageDir<T>(build: () => T): T {
  if (process.env.PI_PACKAGE_DIR !== undefined) return build()
  packageDir ??= adapter.packageDir()
  if (packageDir === undefined) return build()
  const restore = setEnv({ PI_PACKAGE_DIR: packageDir })
  try {
    return build()
  } finally {
    restore()
  }
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

// Pi names the N-th factory `<inline:N>`: its index among the factories, or -1.
const inlineIndex = (path: string) => Number(/^<inline:(\d+)>$/.exec(path)?.[1] ?? 0) - 1

/**
 * What Pi discovers, kept to the session's dirs: Pi also climbs from the cwd to the root for AGENTS.md and
 * `.agents` skills, and the dirs above a session's temp dirs are the machine's.
 */
function withinSessionDirs(cwd: string, home: string) {
  const inside = (path: string) => [cwd, home].some((dir) => {
    const rel = relative(dir, path)
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
  })
  return {
    agentsFilesOverride: <T extends { agentsFiles: { path: string }[] }>(base: T): T => ({ ...base, agentsFiles: base.agentsFiles.filter((file) => inside(file.path)) }),
    skillsOverride: <T extends { skills: { filePath: string }[] }>(base: T): T => ({ ...base, skills: base.skills.filter((skill) => inside(skill.filePath)) }),
  }
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
  for (const shortcut of extension.shortcuts.values()) shortcut.extensionPath = path
}
