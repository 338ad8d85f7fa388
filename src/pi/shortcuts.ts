// Keyboard shortcuts extensions register, run as Pi's interactive mode runs them: the runner's shortcuts
// resolved against the app's keybindings, the first whose key matches the bytes the terminal sent (pi-tui's
// matchesKey), its handler given the extension context the session's extensions see.
import type { AgentSession } from '@mariozechner/pi-coding-agent'
import { tuiModules } from './tui.js'

export interface RegisteredShortcut {
  key: string
  description: string | undefined
  extensionPath: string
}

export type ShortcutPress = { handler: () => Promise<void>; shortcut: RegisteredShortcut } | { registered: RegisteredShortcut[] }

/** The shortcut the terminal's `bytes` resolve to, ready to run; or, when none does, every registered one. */
export async function resolveShortcut(session: AgentSession, bytes: string): Promise<ShortcutPress> {
  const { piTui, keybindings } = await tuiModules()
  const runner = session.extensionRunner
  const shortcuts = runner.getShortcuts(keybindings.getEffectiveConfig())
  for (const [key, shortcut] of shortcuts) {
    if (!piTui.matchesKey(bytes, key)) continue
    const described = { key, description: shortcut.description, extensionPath: shortcut.extensionPath }
    return { shortcut: described, handler: async () => void (await shortcut.handler(runner.createContext())) }
  }
  return { registered: [...shortcuts].map(([key, s]) => ({ key, description: s.description, extensionPath: s.extensionPath })) }
}
