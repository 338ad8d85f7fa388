// Ctrl+Shift+F toggles focus mode: only the read-only tools stay active, and the status line says so.
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'

const READ_ONLY = ['read', 'grep', 'find', 'ls']

export default function focusKey(pi: ExtensionAPI) {
  let saved: string[] | undefined

  pi.registerShortcut('ctrl+shift+f', {
    description: 'Toggle focus mode (read-only tools)',
    handler: async (ctx) => {
      if (saved === undefined) {
        saved = pi.getActiveTools()
        pi.setActiveTools(READ_ONLY)
        ctx.ui.setStatus('focus', 'focus mode')
      } else {
        pi.setActiveTools(saved)
        saved = undefined
        ctx.ui.setStatus('focus', undefined)
      }
    },
  })
}
