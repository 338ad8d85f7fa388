import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { Type } from 'typebox'
import { classify } from './paths.js'

/** A guard: blocks rm -rf, greets with confirmation, a /mode command, and context for the model. */
export default function guard(pi: ExtensionAPI) {
  pi.registerTool({
    name: 'greet',
    label: 'Greet',
    description: 'Greets someone',
    parameters: Type.Object({ name: Type.String() }),
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const ok = await ctx.ui.confirm('Greet?', `Really greet ${params.name}?`)
      if (!ok) throw new Error(`not allowed to greet ${params.name}`)
      ctx.ui.notify(`greeted ${params.name}`, 'info')
      return { content: [{ type: 'text', text: `Hello, ${params.name}!` }], details: { name: params.name } }
    },
  })
  pi.registerCommand('mode', {
    description: 'Switch the safety mode',
    handler: async (args, ctx) => {
      const mode = args || (await ctx.ui.select('Mode?', ['strict', 'relaxed'])) || 'strict'
      ctx.ui.setStatus('guard', `mode: ${mode}`)
    },
  })
  pi.on('tool_call', (event, ctx) => {
    if (event.toolName === 'bash' && /rm -rf/.test(String(event.input.command))) {
      ctx.ui.notify('dangerous command blocked', 'warning')
      return { block: true, reason: 'rm -rf is not allowed' }
    }
    if ((event.toolName === 'write' || event.toolName === 'read') && classify(String(event.input.path)) === 'system') {
      return { block: true, reason: `system path ${event.input.path}` }
    }
  })
  pi.on('before_agent_start', () => ({
    message: { customType: 'guard-context', content: 'The guard extension is active.', display: false },
  }))
}
