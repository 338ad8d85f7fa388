// The Pi line the sessions run on, its adapter loaded once, and what Pi keeps per process rather than
// per session: the resource loader and settings classes, the built-in tools, `pi.exec`'s result shape,
// the theme and the global registries.
import { inspect, type InspectOptions } from 'node:util'
import type { Theme, ToolDefinition } from '@mariozechner/pi-coding-agent'
import type { PiAdapter } from './adapter.js'
import { findPiLine } from './line.js'

/** The Pi line (scope, version, directory) the sessions run on. */
export const PI_LINE = findPiLine()
// Only the running line's adapter is imported: the other line may not be installed, or not run on this Node.
const { createAdapter } = PI_LINE.scope === '@earendil-works' ? await import('./lines/earendil.js') : await import('./lines/mariozechner.js')

/** The running line's adapter: for the modules of src/pi/ only, which type what they offer the rest of src/. */
export const adapter: PiAdapter = await createAdapter(PI_LINE)

/** The running line's resource loader and settings, also for loading a package as Pi does. */
export const { DefaultResourceLoader: PiResourceLoader, SettingsManager: PiSettings } = adapter.exports

/** Resource loader options that turn off discovery on disk: the loader loads only what it is handed. */
export const DISCOVER_NOTHING = {
  noExtensions: true,
  noSkills: true,
  noPromptTemplates: true,
  noThemes: true,
  noContextFiles: true,
} as const

export const BUILTIN_TOOL_NAMES = Object.keys(adapter.builtinTools)

/** Pi's own definition of a built-in tool: name, schema, prompt snippet and renderers stay Pi's. */
export function builtinToolDefinition(name: string, cwd: string): ToolDefinition {
  return adapter.builtinTools[name]!(cwd)
}

/** A `pi.exec` result in the running line's shape (see PiAdapter.execResult). */
export const execResult: PiAdapter['execResult'] = (result) => adapter.execResult(result)

/** Pi's theme is a process-wide singleton that throws until initialised: initialise it on first use. */
export function currentTheme(): Theme {
  const global = globalThis as Record<symbol, Theme | undefined>
  if (!global[adapter.themeKey]) adapter.exports.initTheme('dark')
  return global[adapter.themeKey]!
}

/**
 * Pi's theme for `ctx.ui.theme`, built when an extension first reads from it. A getter would not do: 1.x
 * copies the UI context (a spread) when it binds the extensions, and building the theme costs about 10 ms
 * a process on 1.x, which most tests never draw with. Every access goes to the theme of the moment, which
 * a shared worker resets between files.
 */
export const lazyTheme: Theme = new Proxy(
  // Node's inspect shows a proxy's target, not what its traps give: the target shows the theme instead.
  { [inspect.custom]: (_depth: number, options: InspectOptions) => inspect(currentTheme(), options) } as unknown as Theme,
  {
    get: (_, key) => Reflect.get(currentTheme(), key),
    set: (_, key, value) => Reflect.set(currentTheme(), key, value),
    has: (_, key) => Reflect.has(currentTheme(), key),
    ownKeys: () => Reflect.ownKeys(currentTheme()),
    // Reported configurable: a proxy may not claim a fixed property its target lacks.
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(currentTheme(), key)
      return descriptor && { ...descriptor, configurable: true }
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(currentTheme()),
  },
)

/**
 * Puts Pi's process-wide state back to what a fresh import of Pi starts with: its registries (extensions
 * register providers there, and Pi never removes them on dispose) and the theme, initialised on first use.
 */
export function resetPiGlobals(): void {
  adapter.resetGlobals()
}
