// The extensions under test, as the factories Pi's loader takes: files imported through the module
// loader (Vite's under Vitest), inline factories as they are, each handed the mocked extension API.
import { resolve } from 'node:path'
import { PI_LINE } from '../pi/index.js'
import type { ExtensionAPI, ExtensionFactory } from '../pi/types.js'
import { attributedHandler, type HandlerOrigin } from '../records/handler-errors.js'
import { outsideSessions } from '../shared/session-context.js'
import { asError, messageOf } from '../shared/errors.js'
import type { ExtensionErrorRecord } from '../records/records.js'
import { within } from '../shared/within.js'
import { moduleLoader, type ModuleLoader } from './module-loader.js'

export interface LoadedExtension {
  factory: ExtensionFactory
  /** The file, or `<inline:N>` for the Nth entry when it is a factory. */
  path: string
}

/** How long an extension module may take to load by default: well below Vitest's 5 s test timeout. */
export const EXTENSION_LOAD_TIMEOUT_MS = 3000

interface LoadOptions {
  root: string
  importModule: ModuleLoader | undefined
  extensionApi: (api: ExtensionAPI) => ExtensionAPI
  /** Milliseconds a module may take to load (its top-level awaits included). */
  loadTimeout?: number | undefined
  /** Where each call of an extension's handler stays until it returns. */
  handlersRunning?: Set<HandlerOrigin>
  /** Told when a `pi.events` listener throws (Pi 0.73's bus only prints it; 1.x reports it as this). */
  listenerThrew?: (error: ExtensionErrorRecord) => void
  /** Sends a message of the extension's that starts a turn (see `startTurn` in create.ts); by default at once. */
  startTurn?: (send: () => void) => void
}

export async function loadExtensions(
  entries: readonly (string | ExtensionFactory)[],
  { root, importModule, extensionApi, loadTimeout = EXTENSION_LOAD_TIMEOUT_MS, handlersRunning, listenerThrew = () => {}, startTurn = (send) => send() }: LoadOptions,
): Promise<LoadedExtension[]> {
  const load = moduleLoader(importModule)
  const loaded: LoadedExtension[] = []
  for (const [index, entry] of entries.entries()) {
    if (typeof entry === 'function') {
      const path = `<inline:${index + 1}>`
      loaded.push({ factory: mocked(entry, path, extensionApi, { handlersRunning, listenerThrew, startTurn }), path })
      continue
    }
    const path = resolve(root, entry)
    const module = await importWithin(load, path, loadTimeout)
    if (typeof module.default !== 'function') {
      const found = module.default === undefined ? 'no default export' : `a default export of type ${typeof module.default}`
      throw new Error(`Extension ${path} must export a factory function as default export (pi) => void; found ${found}`)
    }
    loaded.push({ factory: mocked(module.default as ExtensionFactory, path, extensionApi, { handlersRunning, listenerThrew, startTurn }), path })
  }
  return loaded
}

/**
 * The module at `path`, or an error naming it: it failed, or it is still loading after `timeout` ms. Then
 * it is abandoned (a module cannot be cancelled) and the loader is told, so that later loads go ahead.
 */
async function importWithin(load: ModuleLoader, path: string, timeout: number): Promise<Record<string, unknown>> {
  const abandon = new AbortController()
  // Vite's module runner reads process.cwd() (the real one; in a session's code, the session's cwd).
  const loading = (async () => outsideSessions(() => load(path, { signal: abandon.signal })))().catch((error: unknown) => {
    throw new Error(`Extension ${path} failed to load: ${messageOf(error)}`, { cause: error })
  })
  const loaded = await within(loading, timeout)
  if (loaded) return loaded.value
  abandon.abort()
  throw new Error(`Extension ${path} did not finish loading within ${timeout} ms (a top-level await that never settles?)`)
}

/** The factory, called with the mocked API whose handlers say where they threw; a throw is reported as the factory's. */
function mocked(
  factory: ExtensionFactory,
  path: string,
  extensionApi: (api: ExtensionAPI) => ExtensionAPI,
  { handlersRunning, listenerThrew, startTurn }: Pick<LoadOptions, 'handlersRunning' | 'listenerThrew'> & Required<Pick<LoadOptions, 'startTurn'>>,
): ExtensionFactory {
  return async (api) => {
    const mockedApi = extensionApi(api)
    const on = ((event: string, handler: Parameters<ExtensionAPI['on']>[1]) =>
      mockedApi.on(event as never, attributedHandler(handler, { extensionPath: path, event }, handlersRunning))) as ExtensionAPI['on']
    // A command's handler runs like an event's: one that never returns is named as what was running.
    const registerCommand: ExtensionAPI['registerCommand'] = (name, options) =>
      mockedApi.registerCommand(name, { ...options, handler: attributedHandler(options.handler, { extensionPath: path, event: `/${name} command` }, handlersRunning) })
    // As Pi 1.x does on both lines: a listener's throw is the extension's error (0.73's bus only prints it).
    const events: ExtensionAPI['events'] = {
      ...mockedApi.events,
      on: (channel, listener) =>
        mockedApi.events.on(channel, async (data) => {
          try {
            await listener(data)
          } catch (thrown) {
            const error = asError(thrown)
            listenerThrew?.({ extensionPath: path, event: `events:${channel}`, error: error.message, ...(error.stack ? { stack: error.stack } : {}) })
          }
        }),
    }
    // The messages that start a turn when Pi is idle: a user message always, a custom one with triggerTurn.
    const sendUserMessage: ExtensionAPI['sendUserMessage'] = (content, options) => startTurn(() => mockedApi.sendUserMessage(content, options))
    const sendMessage: ExtensionAPI['sendMessage'] = (message, options) =>
      options?.triggerTurn ? startTurn(() => mockedApi.sendMessage(message, options)) : mockedApi.sendMessage(message, options)
    try {
      await factory({ ...mockedApi, on, registerCommand, events, sendUserMessage, sendMessage })
    } catch (error) {
      throw new Error(`its factory threw: ${messageOf(error)}${missingOnThisLine(api, error)}`, { cause: error })
    }
  }
}

// What later Pi lines added to the extension API: an extension that calls one on a line without it gets Pi's TypeError.
const LATER_API = ['registerEntryRenderer', 'registerToolRenderer', 'registerMarkdownTransformer']

/** Why `pi.x is not a function`, when `x` is a later line's: the session runs a Pi that has none. */
function missingOnThisLine(api: ExtensionAPI, error: unknown): string {
  const missing = LATER_API.find((name) => !(name in api) && messageOf(error).includes(`${name} is not a function`))
  return missing ? ` (pi.${missing}() came with Pi 1.x; this session runs ${PI_LINE.packageName}@${PI_LINE.version}, which has none)` : ''
}
