// The standard extension and the standard turn, shared by the harness side and the bare side.
import { Type } from 'typebox'

/** A `greet` tool and a `tool_call` hook that blocks `rm -rf`. */
export function standardExtension(pi) {
  pi.registerTool({
    name: 'greet',
    label: 'Greet',
    description: 'Greets someone',
    parameters: Type.Object({ name: Type.String() }),
    async execute(_toolCallId, params) {
      return { content: [{ type: 'text', text: `Hello, ${params.name}!` }], details: { name: params.name } }
    },
  })
  pi.on('tool_call', (event) => {
    if (event.toolName === 'bash' && /\brm\s+-rf\b/.test(String(event.input.command))) {
      return { block: true, reason: 'rm -rf is not allowed' }
    }
  })
}

/** What the mocked bash answers. */
export const bashAnswer = (params) => `ran ${params.command}`

export const STANDARD_PROMPT = 'clean up'

/**
 * The model's side of one turn as plain steps, each the content of one assistant message:
 * the standard turn is `greet`, a blocked `bash`, then a final text.
 */
export function standardSteps() {
  return [
    [{ type: 'toolCall', id: 'call_1_1', name: 'greet', arguments: { name: 'Ada' } }],
    [{ type: 'toolCall', id: 'call_2_1', name: 'bash', arguments: { command: 'rm -rf /' } }],
    [{ type: 'text', text: 'done' }],
  ]
}

/** `n` sequential bash calls, one per model message, then a final text. */
export function bashCallSteps(n) {
  const steps = []
  for (let i = 1; i <= n; i++) steps.push([{ type: 'toolCall', id: `call_${i}_1`, name: 'bash', arguments: { command: `echo ${i}` } }])
  steps.push([{ type: 'text', text: 'done' }])
  return steps
}
