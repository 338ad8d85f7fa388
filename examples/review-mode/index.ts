import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'

/** The tools the model keeps in review mode: it can look, not touch. */
export const REVIEW_TOOLS = ['read', 'grep', 'find', 'ls']

export const STATUS_KEY = 'review'

/** Prepended to every prompt while review mode is on. */
export const REVIEW_MESSAGE =
  '[REVIEW MODE] You are reviewing this code, not changing it. Read and search the files, then report findings with file and line; do not edit, write or run commands.'

/**
 * `/review` turns review mode on: the model keeps only read-only tools, is told it is reviewing, bash
 * is blocked even if something turns it back on, and the status line says so. `/review` again restores
 * the tools that were active before.
 */
export default function reviewMode(pi: ExtensionAPI) {
  let toolsBefore: string[] | undefined

  pi.registerCommand('review', {
    description: 'Toggle review mode (read-only tools)',
    handler: async (_args, ctx) => {
      if (toolsBefore === undefined) {
        toolsBefore = pi.getActiveTools()
        pi.setActiveTools(REVIEW_TOOLS)
        ctx.ui.setStatus(STATUS_KEY, `review mode: read-only (${REVIEW_TOOLS.join(', ')})`)
        ctx.ui.notify('Review mode on: read-only tools', 'info')
      } else {
        pi.setActiveTools(toolsBefore)
        toolsBefore = undefined
        ctx.ui.setStatus(STATUS_KEY, undefined)
        ctx.ui.notify('Review mode off: tools restored', 'info')
      }
    },
  })

  pi.on('before_agent_start', () => {
    if (toolsBefore === undefined) return undefined
    return { message: { customType: 'review-mode', content: REVIEW_MESSAGE, display: false } }
  })

  pi.on('tool_call', (event) => {
    if (toolsBefore === undefined || event.toolName !== 'bash') return undefined
    return { block: true, reason: 'Review mode is on: bash is not allowed. The user can turn it off with /review.' }
  })
}
