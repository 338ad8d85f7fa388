// What an extension's own renderers draw, with Pi's TUI components (CustomMessageComponent,
// ToolExecutionComponent) on a terminal in memory: recorded in t.events.renders and read by
// toHaveRendered(text, { message | tool, expanded }). Pi's shipped examples are the extensions under test.
import { afterEach, describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from '../src/index.js'
import type { ExtensionAPI } from '../src/pi/types.js'
import { failureOf } from './support/failure-of.js'

const EXAMPLES = 'node_modules/@mariozechner/pi-coding-agent/examples/extensions'
const MESSAGE_RENDERER = `${EXAMPLES}/message-renderer.ts`
const TODO = `${EXAMPLES}/todo.ts`

let t: TestSession | undefined
afterEach(async () => {
  await t?.dispose()
  t = undefined
})

describe('a message renderer (message-renderer.ts)', () => {
  it("draws a custom message with the extension's renderer, collapsed and expanded", async () => {
    t = await createTestSession({ extensions: [MESSAGE_RENDERER] })
    await t.command('status', 'warn disk almost full')

    expect(t).toHaveRendered('[WARN] disk almost full', { message: 'status-update' })
    // Expanded, the renderer adds the time; collapsed it does not.
    expect(t).toHaveRendered(/^\s+at \d/, { message: 'status-update', expanded: true })
    expect(t).not.toHaveRendered(/^\s+at \d/, { message: 'status-update', expanded: false })
    expect(t.events.renders).toMatchObject([{ kind: 'message', name: 'status-update', extensionPath: expect.stringContaining('message-renderer.ts') }])
    expect(t.events.renders[0]!.error).toBeUndefined()
  })

  it('narrows to the customType asked for, and says what was drawn instead', async () => {
    t = await createTestSession({ extensions: [MESSAGE_RENDERER] })
    await t.command('status', 'all good')

    expect(t).toHaveRendered('[INFO] all good')
    const message = failureOf(() => expect(t).toHaveRendered('all good', { message: 'other-type' }))
    expect(message).toContain('Expected a line of message "other-type" to match "all good".')
    expect(message).toContain('Drawn: message "status-update".')
    expect(failureOf(() => expect(t).toHaveRendered('[ERROR]', { message: 'status-update' }))).toContain('message "status-update", collapsed:')
  })

  it('draws nothing for a message that is not displayed, or whose customType has no renderer', async () => {
    t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) => {
          pi.registerMessageRenderer('shown', () => undefined)
          pi.registerCommand('send', {
            handler: async () => {
              pi.sendMessage({ customType: 'shown', content: 'hidden one', display: false })
              pi.sendMessage({ customType: 'unrendered', content: 'plain one', display: true })
            },
          })
        },
      ],
    })
    await t.command('send')
    expect(t.events.renders).toEqual([])
  })

  it('fails the test naming the renderer and its extension when the renderer throws', async () => {
    t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) => {
          pi.registerMessageRenderer('status-update', () => {
            throw new Error('no details')
          })
          pi.registerCommand('status', { handler: async () => pi.sendMessage({ customType: 'status-update', content: 'x', display: true }) })
        },
      ],
    })
    await expect(t.command('status')).rejects.toThrow(/Extension <inline:1>: the message renderer of "status-update" threw: no details \(at .*renderers\.test\.ts.*\); Pi draws its default instead/)
    // Pi drew its default box instead, which the record keeps.
    expect(t.events.renders[0]).toMatchObject({ name: 'status-update', error: expect.stringContaining('no details') })
    expect(t).toHaveRendered('[status-update]')
  })

  it('with propagateErrors: false, records what the renderer threw and goes on', async () => {
    t = await createTestSession({
      propagateErrors: false,
      extensions: [
        (pi: ExtensionAPI) => {
          pi.registerMessageRenderer('status-update', () => {
            throw new Error('no details')
          })
          pi.registerCommand('status', { handler: async () => pi.sendMessage({ customType: 'status-update', content: 'x', display: true }) })
        },
      ],
    })
    await t.command('status')
    expect(t.events.renders[0]!.error).toMatch(/^the message renderer of "status-update" threw: no details/)
  })

  it('fails the test when the renderer draws a line wider than the terminal', async () => {
    t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) => {
          pi.registerMessageRenderer('wide', () => ({ render: () => ['x'.repeat(120)], invalidate() {} }))
          pi.registerCommand('wide', { handler: async () => pi.sendMessage({ customType: 'wide', content: 'x', display: true }) })
        },
      ],
    })
    await expect(t.command('wide')).rejects.toThrow(/the message renderer of "wide": line \d+ it drew is 120 columns wide, wider than the terminal's 80/)
  })
})

describe('a tool renderer (todo.ts)', () => {
  it("draws the call and its result with the tool's renderCall and renderResult", async () => {
    t = await createTestSession({ extensions: [TODO] })
    await t.run(when('add a todo', [calls('todo', { action: 'add', text: 'write tests' }), says('Added.')]))

    expect(t).toHaveRendered('todo add "write tests"', { tool: 'todo' })
    expect(t).toHaveRendered('✓ Added #1 write tests', { tool: 'todo' })
    expect(t.events.renders).toMatchObject([{ kind: 'tool', name: 'todo', toolCallId: t.events.toolCalls[0]!.toolCallId }])
  })

  it('shows every todo expanded, five and "... 2 more" collapsed', async () => {
    t = await createTestSession({ extensions: [TODO] })
    const adds = [1, 2, 3, 4, 5, 6, 7].map((n) => calls('todo', { action: 'add', text: `item ${n}` }))
    await t.run(when('plan', [...adds, calls('todo', { action: 'list' }), says('Planned.')]))

    const list = t.events.renders.at(-1)!
    expect(list.lines.join('\n')).toContain('... 2 more')
    expect(t).toHaveRendered('○ #7 item 7', { tool: 'todo', expanded: true })
    expect(t).not.toHaveRendered('○ #7 item 7', { tool: 'todo', expanded: false })
  })

  it('fails the test naming the tool and its extension when renderResult throws', async () => {
    t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) => {
          pi.registerTool({
            name: 'shout',
            label: 'Shout',
            description: 'Shouts',
            parameters: { type: 'object', properties: {} } as never,
            execute: async () => ({ content: [{ type: 'text', text: 'HEY' }], details: undefined }),
            renderResult: () => {
              throw new TypeError("Cannot read properties of undefined (reading 'level')")
            },
          })
        },
      ],
    })
    await expect(t.run(when('shout', [calls('shout', {}), says('Done.')]))).rejects.toThrow(
      `Extension <inline:1>: tool "shout"'s renderResult threw: Cannot read properties of undefined (reading 'level')`,
    )
  })

  it('draws no tool without renderers of its own', async () => {
    t = await createTestSession({ mockTools: { bash: 'ok' } })
    await t.run(when('list', [calls('bash', { command: 'ls' }), says('Listed.')]))
    expect(t.events.renders).toEqual([])
  })
})

describe('toHaveRendered', () => {
  it('refuses options it does not know, naming them', async () => {
    t = await createTestSession()
    expect(() => expect(t).toHaveRendered('x', { messages: 'a' } as never)).toThrow('toHaveRendered(text, options): unknown option messages; the options are message, tool, expanded')
    expect(() => expect(t).toHaveRendered('x', { message: 'a', tool: 'b' })).toThrow('give message or tool, not both')
  })

  it('draws nothing without a UI (print mode draws no TUI)', async () => {
    t = await createTestSession({ extensions: [MESSAGE_RENDERER], mockUI: false })
    await t.command('status', 'quiet')
    expect(t.events.renders).toEqual([])
  })
})
