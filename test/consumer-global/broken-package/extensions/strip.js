import ansiRegex from 'ansi-regex'

/** Registers `strip_ansi`, which removes terminal colours from a text. */
export default function (pi) {
  pi.registerTool({
    name: 'strip_ansi',
    label: 'Strip ANSI',
    description: 'Removes terminal colour codes',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    async execute(_toolCallId, params) {
      return { content: [{ type: 'text', text: params.text.replace(ansiRegex(), '') }], details: {} }
    },
  })
}
