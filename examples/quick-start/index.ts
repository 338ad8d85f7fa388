import type { ExtensionAPI } from '@earendil-works/pi-coding-agent'

export default function (pi: ExtensionAPI) {
  pi.on('tool_call', (event) => {
    if (event.toolName === 'bash' && /\brm\s+-rf\b/.test(String(event.input.command))) {
      return { block: true, reason: 'rm -rf is not allowed' }
    }
  })
}
