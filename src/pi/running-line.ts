// The Pi line the sessions run on, its adapter loaded once, and what Pi keeps per process rather than
// per session: the resource loader and settings classes, the built-in tools, `pi.exec`'s result shape,
// the theme and the global registries.
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
 * Puts Pi's process-wide state back to what a fresh import of Pi starts with: its registries (extensions
 * register providers there, and Pi never removes them on dispose) and the theme, initialised on first use.
 */
export function resetPiGlobals(): void {
  adapter.resetGlobals()
}
