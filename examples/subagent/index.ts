import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { Type } from 'typebox'

interface PiJsonEvent {
  type: string
  message?: { role: string; content: { type: string; text?: string }[] }
}

/** A `delegate` tool that hands a task to a Pi subprocess in JSON mode and returns its final answer. */
export default function subagent(pi: ExtensionAPI) {
  pi.registerTool({
    name: 'delegate',
    label: 'Delegate',
    description: 'Runs a task in a separate Pi process',
    parameters: Type.Object({ task: Type.String() }),
    async execute(_id, { task }, _signal, _onUpdate, ctx) {
      // The task goes as a file: `pi @file` reads it, whatever its length or quoting.
      writeFileSync(join(ctx.cwd, 'subagent-task.md'), task)
      const sessions = join(ctx.cwd, '.subagent-sessions')
      const result = await pi.exec('pi', ['--mode', 'json', '--session-dir', sessions, '-p', '@subagent-task.md'], { cwd: ctx.cwd })
      if (result.code !== 0) return { content: [{ type: 'text', text: `The subagent failed: ${result.stderr.trim()}` }], details: {} }
      const events = result.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as PiJsonEvent)
      const answer = events.findLast((event) => event.type === 'message_end' && event.message?.role === 'assistant')
      const text = answer?.message?.content.map((part) => part.text ?? '').join('') ?? '(no answer)'
      return { content: [{ type: 'text', text }], details: { sessions } }
    },
  })
}
