import { Type } from 'typebox'

/** Registers `hello`. */
export default function (pi) {
  pi.registerTool({
    name: 'hello',
    label: 'Hello',
    description: 'Says hello to someone',
    parameters: Type.Object({ name: Type.String() }),
    async execute(_toolCallId, params) {
      return { content: [{ type: 'text', text: `Hello, ${params.name}!` }], details: {} }
    },
  })
}
