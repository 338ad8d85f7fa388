// Pi's process-wide state that outlives a session: what a fresh import of Pi would start with.
import { resetApiProviders } from '@mariozechner/pi-ai'
import { resetOAuthProviders } from '@mariozechner/pi-ai/oauth'

const THEME_KEY = Symbol.for('@mariozechner/pi-coding-agent:theme')

/**
 * Puts Pi's global registries back to their built-in state: pi-ai's API providers and OAuth providers
 * (extensions register theirs there, and Pi never removes them on dispose) and the theme global.
 */
export function resetPiGlobals(): void {
  resetApiProviders()
  resetOAuthProviders()
  // Pi's theme lives on globalThis and is initialised on first use (see currentTheme()).
  delete (globalThis as Record<symbol, unknown>)[THEME_KEY]
}
