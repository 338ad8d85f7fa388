import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'

/** `/summary` shows the branch and the uncommitted files, from git through pi.exec. */
export default function gitSummary(pi: ExtensionAPI) {
  pi.registerCommand('summary', {
    description: 'Show the git branch and uncommitted changes',
    handler: async (_args, ctx) => {
      const branch = await pi.exec('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: ctx.cwd })
      if (branch.code !== 0) {
        ctx.ui.notify('Not a git repository', 'error')
        return
      }
      const status = await pi.exec('git', ['status', '--porcelain'], { cwd: ctx.cwd, timeout: 5000 })
      const changed = status.stdout.split('\n').filter(Boolean).length
      ctx.ui.setStatus('git', `${branch.stdout.trim()} · ${changed} changed`)
    },
  })
}
