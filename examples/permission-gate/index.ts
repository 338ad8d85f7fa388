import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'

const DANGEROUS = [/\brm\s+-(r|f|rf|fr)\b/, /\bsudo\b/, /\bchmod\s+777\b/, /\bmkfs\b/, /\bdd\s+if=/]

/** Asks before a dangerous bash command runs; without a UI to ask, blocks it. */
export default function permissionGate(pi: ExtensionAPI) {
  pi.on('tool_call', async (event, ctx) => {
    if (event.toolName !== 'bash') return undefined
    const command = String(event.input.command ?? '')
    if (!DANGEROUS.some((pattern) => pattern.test(command))) return undefined
    if (!ctx.hasUI) return { block: true, reason: `Blocked without a UI to confirm: ${command}` }
    const allowed = await ctx.ui.confirm('Run a dangerous command?', command)
    if (!allowed) return { block: true, reason: `Blocked by the user: ${command}` }
    ctx.ui.notify(`Allowed: ${command}`, 'warning')
    return undefined
  })
}
