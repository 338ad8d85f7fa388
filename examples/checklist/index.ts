// A `checklist` tool that draws its own row in Pi's TUI: the call as "checklist <title>", the result as
// "3/4 done" collapsed, and each item with ✓ or ✗ once the user expands tool output (Ctrl+O).
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { Text } from '@mariozechner/pi-tui'
import { Type } from 'typebox'

interface ChecklistDetails {
  items: { text: string; done: boolean }[]
}

export default function checklist(pi: ExtensionAPI) {
  pi.registerTool({
    name: 'checklist',
    label: 'Checklist',
    description: 'Show a checklist of items, each done or not',
    parameters: Type.Object({ title: Type.String(), items: Type.Array(Type.Object({ text: Type.String(), done: Type.Boolean() })) }),
    async execute(_id, { title, items }) {
      const lines = items.map((item) => `[${item.done ? 'x' : ' '}] ${item.text}`)
      return { content: [{ type: 'text', text: `${title}\n${lines.join('\n')}` }], details: { items } as ChecklistDetails }
    },
    renderCall(args, theme) {
      return new Text(`${theme.fg('toolTitle', theme.bold('checklist '))}${theme.fg('muted', args.title)}`, 0, 0)
    },
    renderResult(result, { expanded }, theme) {
      const { items } = result.details as ChecklistDetails
      const done = items.filter((item) => item.done).length
      let text = theme.fg(done === items.length ? 'success' : 'warning', `${done}/${items.length} done`)
      if (expanded) for (const item of items) text += `\n${item.done ? theme.fg('success', '✓') : theme.fg('error', '✗')} ${item.text}`
      return new Text(text, 0, 0)
    },
  })
}
