// An inline factory takes its types from the installed line's ExtensionAPI: `event` and `ctx` are Pi's own.
import { expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

it('blocks with an inline factory', async () => {
  const t = await createTestSession({
    extensions: [
      (pi) => {
        pi.on('tool_call', (event, ctx) => {
          ctx.ui.notify(`saw ${event.toolName}`, 'info')
          // @ts-expect-error a tool name is a string
          event.toolName.toFixed()
          // @ts-expect-error notify levels are info, warning, error
          ctx.ui.notify('x', 'loud')
          if (event.toolName === 'bash') return { block: true, reason: 'no shell' }
          return undefined
        })
        // @ts-expect-error a handler is a function
        pi.on('tool_call', 'block')
        pi.registerCommand('mode', { description: 'Mode', handler: async (args, ctx) => ctx.ui.setStatus('mode', args) })
      },
    ],
  })
  await t.run(when('run ls', [calls('bash', { command: 'ls' }), says('blocked')]))
  expect(t).toHaveBlocked('bash', 'no shell')
  expect(t).toHaveNotified('saw bash', 'info')
  // Any level an extension passes is accepted ('success', …); a level is a string.
  expect(t).toHaveNotified('saw bash', 'success')
  // @ts-expect-error a level is a string
  expect(t).toHaveNotified('saw bash', 3)
  const first = t.events.messages[0]
  if (first?.role === 'user') expect(first.content).toBeDefined()
})
