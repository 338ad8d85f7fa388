// Compiled with tsc --noEmit: every @ts-expect-error must meet an error, or tsc fails. This file does not
// import the package: the matchers' types come from "vitest-environment-pi" in tsconfig's `types`.
import { expect } from 'vitest'

declare const t: { events: unknown }

expect(t).toHaveCalledTool('bash', { command: expect.stringContaining('ls') })
expect(t).not.toHaveBlocked('bash', /rm/)
expect(t).toHaveToolResult('read', { text: 'x', isError: false })
expect(t).toHavePrompted('confirm', 'Delete?')
expect({ s: t }).toEqual({ s: expect.toHaveCalledTool('bash') })
expect({ s: t }).toEqual({ s: expect.not.toHaveCalledTool('write') })

// @ts-expect-error the tool name is a string
expect(t).toHaveCalledTool(123)
// @ts-expect-error params are an object
expect(t).toHaveCalledTool('read', 'x')
// @ts-expect-error no such matcher
expect(t).toHaveCalledToolz('bash')
// @ts-expect-error times is a number
expect(t).toHaveCalledToolTimes('bash', '2')
// @ts-expect-error not a dialog method
expect(t).toHavePrompted('notify')
// @ts-expect-error isError is a boolean
expect(t).toHaveToolResult('read', { isError: 'yes' })
// Any level an extension passes is accepted; a level is a string.
expect(t).toHaveNotified('x', 'success')
// @ts-expect-error a level is a string
expect(t).toHaveNotified('x', 2)
expect(t).toHaveBlocked('bash', { command: expect.stringContaining('clean') }, /not allowed/)
expect(t).toHavePrompted('select', 'Pick', { answer: 'b', options: { timeout: 1000, signal: true } })
expect(t).toHaveSetWidget('todos', ['a'])
expect(t).toHaveRendered(/> 2/)
expect(t).toHaveAppendedEntry('plan', { step: 1 })
expect({ s: t }).toEqual({ s: expect.toHaveSetWidget('todos', undefined) })
// @ts-expect-error the widget key is a string
expect(t).toHaveSetWidget(1)

// The matchers register with expect.extend as Vitest's own (Vitest 4 and 5 declare its parameter differently,
// so the package does not type it).
expect.extend({ toHaveCalledTool: (_received: unknown, _name: string) => ({ pass: true, message: () => '' }) })
