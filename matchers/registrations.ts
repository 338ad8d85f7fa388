// What the extension registered with Pi.
import type { MatcherState } from 'vitest'
import { requireReceived } from './receiver.js'
import { report, type MatcherOutcome } from './report.js'

export function toHaveRegisteredTool(this: MatcherState, received: unknown, name: string): MatcherOutcome {
  const { session, events } = requireReceived(received, 'toHaveRegisteredTool', true)
  const tools = session!.getAllTools().map((tool) => tool.name)
  return report(this, {
    matcher: 'toHaveRegisteredTool',
    timeline: { events },
    args: 'name',
    pass: tools.includes(name),
    expected: `Expected a tool named ${name}.`,
    notExpected: `Expected no tool named ${name}.`,
    happened: () => `Tools: ${tools.join(', ') || '(none)'}`,
  })
}

export function toHaveRegisteredCommand(this: MatcherState, received: unknown, name: string): MatcherOutcome {
  const { session, events } = requireReceived(received, 'toHaveRegisteredCommand', true)
  const commands = session!.extensionRunner.getRegisteredCommands().map((c) => c.invocationName)
  const bare = name.replace(/^\//, '')
  return report(this, {
    matcher: 'toHaveRegisteredCommand',
    timeline: { events },
    args: 'name',
    pass: commands.includes(bare),
    expected: `Expected a command /${bare}.`,
    notExpected: `Expected no command /${bare}.`,
    happened: () => `Commands: ${commands.map((c) => `/${c}`).join(', ') || '(none)'}`,
  })
}
