import { complete } from '@mariozechner/pi-ai'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'

const SYSTEM_PROMPT = 'You write one-line conventional commit messages for a staged diff.'

/** `/commit` asks the session's model for a message for the staged diff, then commits with it. */
export default function commitMessage(pi: ExtensionAPI) {
  pi.registerCommand('commit', {
    description: 'Commit the staged changes with a message written by the model',
    handler: async (_args, ctx) => {
      const model = ctx.model!
      const auth = await ctx.modelRegistry.getApiKeyAndHeaders(model)
      if (!auth.ok || !auth.apiKey) {
        ctx.ui.notify(`No API key for ${model.provider}: run /login`, 'error')
        return
      }
      const diff = await pi.exec('git', ['diff', '--staged'], { cwd: ctx.cwd })
      if (!diff.stdout.trim()) {
        ctx.ui.notify('Nothing staged', 'warning')
        return
      }
      const response = await complete(
        model,
        { systemPrompt: SYSTEM_PROMPT, messages: [{ role: 'user', content: diff.stdout, timestamp: Date.now() }] },
        { apiKey: auth.apiKey, headers: auth.headers },
      )
      if (response.stopReason !== 'stop') {
        ctx.ui.notify(`No commit: the model failed (${response.errorMessage})`, 'error')
        return
      }
      const message = response.content.map((block) => (block.type === 'text' ? block.text : '')).join('').trim()
      await pi.exec('git', ['commit', '-m', message], { cwd: ctx.cwd })
      ctx.ui.notify(`Committed: ${message}`, 'info')
    },
  })
}
