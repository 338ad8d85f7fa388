// What Pi's interactive mode draws, with Pi's TUI components (CustomMessageComponent, ToolExecutionComponent,
// 1.x's CustomEntryComponent) on a terminal in memory: recorded in t.events.renders and read by
// toHaveRendered(text, { message | tool | entry, expanded, partial }). Pi's shipped examples are the
// extensions under test where Pi ships one.
import { afterEach, describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from '../src/index.js'
import { PI_LINE } from '../src/pi/index.js'
import type { ExtensionAPI } from '../src/pi/types.js'
import { failureOf } from './support/failure-of.js'

const EXAMPLES = 'node_modules/@mariozechner/pi-coding-agent/examples/extensions'
const MESSAGE_RENDERER = `${EXAMPLES}/message-renderer.ts`
const TODO = `${EXAMPLES}/todo.ts`
const BUILT_IN_TOOL_RENDERER = `${EXAMPLES}/built-in-tool-renderer.ts`
// Entry renderers and tool renderer resolvers came with 1.x; its examples are the 1.x package's.
const ENTRY_RENDERER = 'node_modules/@earendil-works/pi-coding-agent/examples/extensions/entry-renderer.ts'
const ON_1X = PI_LINE.scope === '@earendil-works'

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

  it("draws a tool without renderers in Pi's default box: its name and arguments, then its output", async () => {
    t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) => {
          pi.registerTool({
            name: 'plain',
            label: 'Plain',
            description: 'No renderers',
            parameters: { type: 'object', properties: {} } as never,
            execute: async () => ({ content: [{ type: 'text', text: 'done' }], details: undefined }),
          })
        },
      ],
    })
    await t.run(when('go', [calls('plain', { n: 1 }), says('Done.')]))
    expect(t.events.renders).toMatchObject([{ kind: 'tool', name: 'plain', extensionPath: '<inline:1>' }])
    expect(t).toHaveRendered('plain', { tool: 'plain' })
    expect(t).toHaveRendered('done', { tool: 'plain' })
  })
})

describe("a built-in tool, drawn with Pi's own renderers", () => {
  it('draws the call and its (mocked) result as Pi shows them', async () => {
    t = await createTestSession({ mockTools: { bash: 'ok\nsecond line', read: 'file text' } })
    await t.run(when('look', [calls('bash', { command: 'ls' }), calls('read', { path: 'notes.md' }), says('Looked.')]))

    expect(t).toHaveRendered('$ ls', { tool: 'bash' })
    expect(t).toHaveRendered('second line', { tool: 'bash' })
    expect(t).toHaveRendered('read notes.md', { tool: 'read' })
    expect(t).toHaveRendered('file text', { tool: 'read', expanded: true })
    expect(t.events.renders).toMatchObject([
      { kind: 'tool', name: 'bash', extensionPath: 'builtin:bash', toolCallId: t.events.toolCalls[0]!.toolCallId },
      { kind: 'tool', name: 'read', extensionPath: 'builtin:read' },
    ])
  })

  it("draws a built-in tool an extension registers again with the extension's renderers (built-in-tool-renderer.ts)", async () => {
    t = await createTestSession({ extensions: [BUILT_IN_TOOL_RENDERER], mockTools: { read: 'one\ntwo\nthree' } })
    await t.run(when('read it', [calls('read', { path: 'notes.md' }), says('Read.')]))
    expect(t).toHaveRendered('read notes.md', { tool: 'read' })
    expect(t.events.renders[0]!.extensionPath).toContain('built-in-tool-renderer.ts')
  })
  it("draws a built-in tool an extension registers again without renderers with Pi's built-in ones", async () => {
    t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) => {
          pi.registerTool({
            name: 'read',
            label: 'read',
            description: 'Reads from a cache',
            parameters: { type: 'object', properties: { path: { type: 'string' } } } as never,
            execute: async () => ({ content: [{ type: 'text', text: 'cached text' }], details: undefined }),
          })
        },
      ],
    })
    await t.run(when('read it', [calls('read', { path: 'notes.md' }), says('Read.')]))
    // Pi's read row, not its default box ("read path="notes.md"").
    expect(t).toHaveRendered(/^ read notes\.md$/, { tool: 'read' })
    expect(t.events.renders[0]!.extensionPath).toBe('<inline:1>')
  })
})

describe("a tool's partial results (onUpdate), as Pi shows them while the tool runs", () => {
  it("draws each partial result with the tool's renderResult, then the final one (built-in-tool-renderer.ts, real bash)", async () => {
    t = await createTestSession({ extensions: [BUILT_IN_TOOL_RENDERER] })
    await t.run(when('count', [calls('bash', { command: 'echo one; echo two' }), says('Counted.')]))

    // The example's renderResult shows "Running..." while the result is partial, then "done (2 lines)".
    expect(t).toHaveRendered('Running...', { tool: 'bash', partial: true })
    expect(t).not.toHaveRendered('Running...', { tool: 'bash', partial: false })
    expect(t).toHaveRendered('done (2 lines)', { tool: 'bash', partial: false })
    const drawings = t.events.renders.filter((r) => r.name === 'bash')
    expect(drawings.at(-1)!.partial).toBeUndefined()
    expect(drawings.slice(0, -1).every((r) => r.partial === true)).toBe(true)
    expect(drawings.length).toBeGreaterThan(1)
  })

  it('draws what an extension tool sends to onUpdate', async () => {
    t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) => {
          pi.registerTool({
            name: 'fetch_all',
            label: 'Fetch all',
            description: 'Fetches pages',
            parameters: { type: 'object', properties: {} } as never,
            async execute(_id, _params, _signal, onUpdate) {
              for (const page of [1, 2]) onUpdate?.({ content: [{ type: 'text', text: `page ${page}` }], details: { page } })
              return { content: [{ type: 'text', text: 'all pages' }], details: { page: 2 } }
            },
            renderResult: (result, { isPartial }) => ({
              render: () => [isPartial ? `fetching ${(result.details as { page: number }).page}…` : 'fetched every page'],
              invalidate() {},
            }),
          })
        },
      ],
    })
    await t.run(when('fetch', [calls('fetch_all', {}), says('Fetched.')]))
    expect(t.events.renders.map((r) => [r.partial ?? false, r.lines.filter(Boolean).at(-1)?.trim()])).toEqual([
      [true, 'fetching 1…'],
      [true, 'fetching 2…'],
      [false, 'fetched every page'],
    ])
    const message = failureOf(() => expect(t).toHaveRendered('fetching 3', { tool: 'fetch_all', partial: true }))
    expect(message).toContain('Expected a line of tool "fetch_all" (partial) to match "fetching 3".')
    expect(message).toContain('tool "fetch_all" (partial result), collapsed:')
  })
})

describe.runIf(ON_1X)("1.x's pi.registerToolRenderer", () => {
  // Pi's documented resolver (docs/extensions.md): fills in renderers for MCP tools, only where none exist.
  const resolver = (pi: ExtensionAPI) =>
    (pi as unknown as { registerToolRenderer(resolve: (toolName: string, next: () => unknown) => unknown): void }).registerToolRenderer((toolName, next) => {
      if (!toolName.startsWith('mcp__')) return next()
      return next() ?? { renderCall: () => ({ render: () => [`MCP ${toolName}`], invalidate() {} }) }
    })

  it("draws a call with the renderers a resolver chose, naming the resolver's extension", async () => {
    // No tool is registered under that name (as for an MCP tool whose server has not connected yet): Pi answers "not found".
    t = await createTestSession({ extensions: [resolver], mockTools: { bash: 'ok' }, propagateErrors: false })
    await t.run(when('search', [calls('mcp__search', {}), calls('bash', { command: 'ls' }), says('Found.')]))
    expect(t).toHaveRendered('MCP mcp__search', { tool: 'mcp__search' })
    // The resolver handed bash on through next(): Pi's own renderers drew it.
    expect(t.events.renders).toMatchObject([
      { name: 'mcp__search', extensionPath: '<inline:1>' },
      { name: 'bash', extensionPath: 'builtin:bash' },
    ])
  })

  it('fails the test naming the resolver that threw, and draws what the rest would use', async () => {
    t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) =>
          (pi as unknown as { registerToolRenderer(resolve: () => unknown): void }).registerToolRenderer(() => {
            throw new Error('no theme yet')
          }),
      ],
      mockTools: { bash: 'ok' },
    })
    await expect(t.run(when('list', [calls('bash', { command: 'ls' }), says('Listed.')]))).rejects.toThrow(
      /Extension builtin:bash: the tool renderer resolver of <inline:1> threw for tool "bash": no theme yet/,
    )
    expect(t).toHaveRendered('$ ls', { tool: 'bash' })
  })
})

describe.runIf(ON_1X)("1.x's entry renderers (entry-renderer.ts)", () => {
  it('draws a custom entry with its renderer when it is appended, collapsed and expanded', async () => {
    t = await createTestSession({ extensions: [ENTRY_RENDERER] })
    await t.command('status-card', 'deploy done')

    expect(t).toHaveRendered('[status] deploy done', { entry: 'status-card' })
    // Expanded, the example adds the time.
    expect(t.events.renders).toMatchObject([{ kind: 'entry', name: 'status-card', extensionPath: expect.stringContaining('entry-renderer.ts') }])
    expect(t.events.renders[0]!.expandedLines.filter(Boolean).length).toBeGreaterThan(t.events.renders[0]!.lines.filter(Boolean).length)
  })

  it('draws nothing for an entry whose renderer returns nothing, and records one that throws', async () => {
    t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) => {
          const entries = pi as unknown as { registerEntryRenderer(type: string, render: (entry: { data: { n: number } }) => unknown): void }
          entries.registerEntryRenderer('quiet', () => undefined)
          entries.registerEntryRenderer('broken', (entry) => ({ render: () => [entry.data.n.toFixed(1)], invalidate() {} }))
          entries.registerEntryRenderer('failing', () => {
            throw new Error('no layout')
          })
          pi.registerCommand('note', {
            handler: async () => {
              pi.appendEntry('quiet', {})
              pi.appendEntry('failing', {})
              pi.appendEntry('broken', {})
            },
          })
        },
      ],
      propagateErrors: false,
    })
    await t.command('note')
    expect(t.events.renders.map((r) => [r.name, r.error])).toEqual([
      // Pi shows its own box with the error instead.
      ['failing', expect.stringMatching(/^the entry renderer of "failing" threw: no layout \(at .*renderers\.test\.ts.*\); Pi draws its default instead$/)],
      // A component that throws when drawn stops Pi's TUI.
      ['broken', expect.stringMatching(/^the entry renderer of "broken": the component it returned threw in render\(\): Cannot read properties of undefined \(reading 'toFixed'\)/)],
    ])
    expect(t).toHaveRendered('[failing] renderer failed: no layout', { entry: 'failing' })
  })
})

describe('toHaveRendered', () => {
  it('refuses options it does not know, naming them', async () => {
    t = await createTestSession()
    expect(() => expect(t).toHaveRendered('x', { messages: 'a' } as never)).toThrow(
      'toHaveRendered(text, options): unknown option messages; the options are message, tool, entry, expanded, partial',
    )
    expect(() => expect(t).toHaveRendered('x', { message: 'a', tool: 'b' })).toThrow('give one of message, tool or entry, not message and tool')
    expect(() => expect(t).toHaveRendered('x', { partial: 'yes' } as never)).toThrow('partial must be true or false, got a string')
  })

  it('draws nothing without a UI (print mode draws no TUI)', async () => {
    t = await createTestSession({ extensions: [MESSAGE_RENDERER], mockUI: false })
    await t.command('status', 'quiet')
    expect(t.events.renders).toEqual([])
  })
})

describe.skipIf(ON_1X)('on Pi 0.73, which has no entry renderers or tool renderer resolvers', () => {
  type Later = { registerEntryRenderer(type: string, render: () => undefined): void; registerToolRenderer(resolve: () => undefined): void }
  const factories = {
    registerEntryRenderer: (pi: ExtensionAPI) => (pi as unknown as Later).registerEntryRenderer('card', () => undefined),
    registerToolRenderer: (pi: ExtensionAPI) => (pi as unknown as Later).registerToolRenderer(() => undefined),
  }
  it.each(Object.entries(factories))('an extension that calls pi.%s() fails to load, saying the line has none', async (name, factory) => {
    await expect(createTestSession({ extensions: [factory] })).rejects.toThrow(
      new RegExp(`${name} is not a function \\(pi\\.${name}\\(\\) came with Pi 1\\.x; this session runs @mariozechner/pi-coding-agent@0\\.73\\.\\d+, which has none\\)`),
    )
  })
})
