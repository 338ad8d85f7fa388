import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'

/** Asks before a `git push`; blocks it when the user declines, and says so when it goes ahead. */
export default function pushGuard(pi: ExtensionAPI) {
  pi.on('tool_call', async (event, ctx) => {
    if (event.toolName !== 'bash') return undefined
    const command = String(event.input.command ?? '')
    if (!/\bgit\s+push\b/.test(command)) return undefined
    if (!(await ctx.ui.confirm('Push to the remote?', command))) return { block: true, reason: 'The user declined the push' }
    ctx.ui.notify(`Pushing: ${command}`, 'info')
    return undefined
  })
}
