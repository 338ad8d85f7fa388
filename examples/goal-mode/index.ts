// /goal <text>: keeps the agent working towards a goal. After each run it asks for the next turn itself; a
// run that ends on a provider error backs off (two minutes for a rate limit), then retries; "GOAL MET" ends it.
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'

const CONTINUE_MS = 100
const RATE_LIMIT_BACKOFF_MS = 120_000

export default function goalMode(pi: ExtensionAPI) {
  let goal: string | undefined

  pi.registerCommand('goal', {
    description: 'Work towards a goal until the model says GOAL MET',
    handler: async (args, ctx) => {
      goal = args.trim()
      ctx.ui.setStatus('goal', `goal: ${goal}`)
      pi.sendUserMessage(`Goal: ${goal}`)
    },
  })

  pi.on('agent_end', async (event, ctx) => {
    if (goal === undefined) return
    const last = event.messages.at(-1)
    if (last?.role !== 'assistant') return
    const text = last.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    if (text.includes('GOAL MET')) {
      ctx.ui.notify(`Goal met: ${goal}`, 'info')
      ctx.ui.setStatus('goal', undefined)
      goal = undefined
      return
    }
    const rateLimited = last.stopReason === 'error' && /rate.?limit|429/i.test(last.errorMessage ?? '')
    if (rateLimited) ctx.ui.notify('Rate limited: retrying in 2 minutes', 'warning')
    setTimeout(() => pi.sendUserMessage(rateLimited ? 'Retry: continue with the goal.' : 'Continue with the goal.'), rateLimited ? RATE_LIMIT_BACKOFF_MS : CONTINUE_MS)
  })
}
