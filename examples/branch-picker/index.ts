import { getSelectListTheme, type ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { SelectList } from '@mariozechner/pi-tui'

/** /checkout: pick a git branch from a list, switch to it, show it in a widget and remember it in the session. */
export default function branchPicker(pi: ExtensionAPI) {
  pi.registerCommand('checkout', {
    description: 'Switch to another git branch',
    handler: async (_args, ctx) => {
      if (!ctx.hasUI) return ctx.ui.notify('/checkout needs the interactive UI', 'error')
      const listed = await pi.exec('git', ['branch', '--format=%(refname:short)'], { cwd: ctx.cwd })
      const items = listed.stdout
        .split('\n')
        .filter(Boolean)
        .map((branch) => ({ value: branch, label: branch }))
      const branch = await ctx.ui.custom<string | undefined>((tui, _theme, _keybindings, done) => {
        const list = new SelectList(items, 8, getSelectListTheme())
        list.onSelect = (item) => done(item.value)
        list.onCancel = () => done(undefined)
        list.onSelectionChange = () => tui.requestRender()
        return list
      })
      if (branch === undefined) return
      const switched = await pi.exec('git', ['checkout', '--quiet', branch], { cwd: ctx.cwd })
      if (switched.code !== 0) return ctx.ui.notify(`git checkout ${branch} failed: ${switched.stderr.trim()}`, 'error')
      ctx.ui.setWidget('branch', [`on ${branch}`])
      pi.appendEntry('branch-switch', { branch })
    },
  })
}
