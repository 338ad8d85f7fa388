// ctx.ui.custom() driven by keys: the extension's own component runs with Pi's TUI, theme and keybindings,
// and its done() answers. Pi's example question.ts as the running line ships it.
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { matchesKey, parseKey, SelectList, Text, type SelectItem } from '@mariozechner/pi-tui'
import { calls, createTestSession, says, when, type MockUIOptions, type TestSession } from '../src/index.js'
import { keystrokes } from '../src/mocks/keys.js'
import { PI_LINE } from '../src/pi/index.js'

const QUESTION = join(PI_LINE.packageDir, 'examples/extensions/question.ts')
const SNAKE = join(PI_LINE.packageDir, 'examples/extensions/snake.ts')
const asks = calls('question', { question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite', description: 'a file' }] })

let t: TestSession | undefined
afterEach(async () => {
  await t?.dispose()
  t = undefined
})

/** Registers `/pick`, which shows `factory` with ctx.ui.custom() and notifies what it resolved with. */
function picker(factory: unknown, options?: object) {
  return (pi: ExtensionAPI) =>
    pi.registerCommand('pick', {
      handler: async (_args, ctx) => ctx.ui.notify(`picked: ${JSON.stringify(await ctx.ui.custom(factory as never, options as never))}`),
    })
}
const picked = () => t!.events.uiCallsFor('notify').map((c) => c.args[0])

describe("Pi's question.ts, driven by keys", () => {
  it('renders the question, moves down, and the component answers with the option it shows', async () => {
    t = await createTestSession({ extensions: [QUESTION], mockUI: { custom: { keys: ['down', 'enter'], columns: 60 } } })
    await t.run(when('set up the app', [asks, says('SQLite it is.')]))

    expect(t).toHaveToolResult('question', { text: 'User selected: 2. SQLite', details: { answer: 'SQLite', wasCustom: false } })
    const [call] = t.events.uiCallsFor('custom')
    expect(call!.returnValue).toEqual({ answer: 'SQLite', wasCustom: false, index: 2 })
    expect(call!.frames!.map((f) => f.after)).toEqual([undefined, 'down'])
    // The first frame: the question and its options, the first one selected; then the second.
    expect(call!.frames![0]!.lines).toEqual(expect.arrayContaining([' Which database?', '> 1. Postgres', '  2. SQLite', '     a file']))
    expect(call!.frames![1]!.lines).toEqual(expect.arrayContaining(['  1. Postgres', '> 2. SQLite']))
    expect(call!.frames![0]!.lines[0]).toBe('─'.repeat(60))
    expect(t).toHaveRendered('> 2. SQLite')
    expect(t).not.toHaveRendered('> 3. Type something.')
  })

  it('types a custom answer into Pi\'s own Editor component', async () => {
    t = await createTestSession({ extensions: [QUESTION], mockUI: { custom: { keys: ['down', 'down', 'enter', { text: 'MySQL' }, 'enter'] } } })
    await t.run(when('set up the app', [asks, says('MySQL it is.')]))

    expect(t).toHaveToolResult('question', { text: 'User wrote: MySQL', details: { answer: 'MySQL', wasCustom: true } })
    expect(t).toHaveRendered(/Your answer:/)
    expect(t.events.uiCallsFor('custom')[0]!.frames!.map((f) => f.after)).toEqual([undefined, 'down', 'down', 'enter', '"MySQL"'])
  })

  it('escape cancels: the component answers null', async () => {
    t = await createTestSession({ extensions: [QUESTION], mockUI: { custom: { keys: ['escape'] } } })
    await t.run(when('set up the app', [asks, says('Cancelled.')]))
    expect(t).toHaveToolResult('question', { text: 'User cancelled the selection' })
  })

  it('a plain scripted value still answers without running the component', async () => {
    t = await createTestSession({ extensions: [QUESTION], mockUI: { custom: { answer: 'Postgres', wasCustom: false, index: 1 } } })
    await t.run(when('set up the app', [asks, says('Postgres.')]))
    expect(t).toHaveToolResult('question', { text: 'User selected: 1. Postgres' })
    expect(t.events.uiCallsFor('custom')[0]).not.toHaveProperty('frames')
  })
})

describe("Pi's snake.ts, a game on a timer", () => {
  it('saves the game on Escape into the session, and the next /snake starts paused from it', async () => {
    t = await createTestSession({ extensions: [SNAKE], mockUI: { custom: { keys: ['up', 'escape'] } } })
    await t.command('snake')
    expect(t).toHaveRendered(/SNAKE │ Score: 0 │ High: 0/)
    expect(t).toHaveRendered('ESC pause')
    expect(t).toHaveAppendedEntry('snake-save', { score: 0, gameOver: false })

    // Resumed from the saved entry: paused until a key; "up" resumes, Escape saves again.
    await t.command('snake')
    const [, second] = t.events.uiCallsFor('custom')
    expect(second!.frames![0]!.lines).toContainEqual(expect.stringContaining('PAUSED Press any key to continue'))
    expect(t.events.entries).toHaveLength(2)
  })
})

describe('custom() components', () => {
  const session = async (factory: (...args: never[]) => unknown, custom: MockUIOptions['custom'], options?: object) => {
    t = await createTestSession({ extensions: [picker(factory, options)], mockUI: { custom } })
  }

  it("gets Pi's real TUI, theme and keybindings: pi-tui's SelectList works with the app's keys", async () => {
    const items: SelectItem[] = [
      { value: 'a', label: 'Alpha' },
      { value: 'b', label: 'Beta' },
    ]
    await session(
      ((tui: { requestRender(): void }, theme: { fg(color: string, text: string): string }, _keybindings: unknown, done: (v: unknown) => void) => {
        const list = new SelectList(items, 5, {
          selectedPrefix: (s) => theme.fg('accent', s),
          selectedText: (s) => theme.fg('accent', s),
          description: (s) => s,
          scrollInfo: (s) => s,
          noMatch: (s) => s,
        })
        list.onSelect = (item) => done(item.value)
        list.onSelectionChange = () => tui.requestRender()
        return list
      }) as never,
      { keys: ['down', 'enter'] },
    )
    await t!.command('pick')
    expect(picked()).toEqual(['picked: "b"'])
    expect(t).toHaveRendered(/→ Beta/)
  })

  it('an overlay renders at its width and gets the keys', async () => {
    let handled = false
    await session(
      ((_tui: unknown, _theme: unknown, _kb: unknown, done: (v: unknown) => void) => ({
        render: (width: number) => [`[${'='.repeat(width - 2)}]`],
        invalidate() {},
        handleInput: (data: string) => matchesKey(data, 'enter') && done((handled = true)),
      })) as never,
      { keys: ['enter'] },
      { overlay: true, overlayOptions: { width: 20 } },
    )
    await t!.command('pick')
    expect(handled).toBe(true)
    expect(t!.events.uiCallsFor('custom')[0]!.frames![0]!.lines).toEqual([`[${'='.repeat(18)}]`])
  })

  it('a factory that throws fails the test, naming the factory and where it threw; the extension sees the throw', async () => {
    await session(
      (() => {
        throw new Error('no terminal for you')
      }) as never,
      { keys: ['enter'] },
    )
    await expect(t!.command('pick')).rejects.toThrow(/ctx\.ui\.custom\(\): the component factory threw: no terminal for you \(at .*ui-custom\.test\.ts/)
  })

  it('keys left after done(), and no done() after the last key, fail the test', async () => {
    const closesOnEnter = ((_tui: unknown, _theme: unknown, _kb: unknown, done: (v: unknown) => void) => ({
      render: () => ['press enter'],
      invalidate() {},
      handleInput: (data: string) => matchesKey(data, 'enter') && done('ok'),
    })) as never
    await session(closesOnEnter, { keys: ['enter', 'down', 'x'] })
    await expect(t!.command('pick')).rejects.toThrow('ctx.ui.custom(): the component called done() after 1 of 3 key(s); left unpressed: down, x')
    await t!.dispose()

    // One key left is enough.
    await session(closesOnEnter, { keys: ['enter', 'down'] })
    await expect(t!.command('pick')).rejects.toThrow('ctx.ui.custom(): the component called done() after 1 of 2 key(s); left unpressed: down')
    await t!.dispose()

    await session(closesOnEnter, { keys: ['down'] })
    await expect(t!.command('pick')).rejects.toThrow(/the component did not call done\(\) after 1 key\(s\) \[down\]\. It showed:\n\s+press enter/)
  })

  it('a line wider than the terminal fails the test, as Pi\'s TUI stops on it', async () => {
    await session((() => new Text('x'.repeat(30), 0, 0)) as never, { keys: [], columns: 20 })
    // Text wraps to the width: fine. A raw component that does not is refused.
    await expect(t!.command('pick')).rejects.toThrow('did not call done()')
    await t!.dispose()
    await session((() => ({ render: () => ['y'.repeat(30)], invalidate() {} })) as never, { keys: ['enter'], columns: 20 })
    await expect(t!.command('pick')).rejects.toThrow("line 1 the component rendered is 30 columns wide, wider than the terminal's 20")
  })

  it('a name that is not a key, or a bad size, is an error naming the entry', async () => {
    const bare = { extensions: [picker(() => ({ render: () => [], invalidate() {} }))] }
    await expect(createTestSession({ ...bare, mockUI: { custom: { keys: ['down', 'dwon'] } } })).rejects.toThrow(
      'createTestSession: option "mockUI.custom.keys[1]" must be a pi-tui key id ("down", "enter", "ctrl+c", a character) or { text }, got "dwon"',
    )
    await expect(createTestSession({ ...bare, mockUI: { custom: { keys: [], columns: 0 } } })).rejects.toThrow(
      'option "mockUI.custom.columns" must be a whole number of character cells (1 or more), got 0',
    )
    // The mock spec's ui block is checked by its schema, which leaves answers free: the key fails when pressed.
    t = await createTestSession({ ...bare, mocks: { ui: { responses: { custom: { keys: ['dwon'] } } } } })
    await expect(t.command('pick')).rejects.toThrow('mockUI.custom.keys[0]: "dwon" is not a key. Use a pi-tui key id')
  })

  it('an array is a queue: each custom() call takes the next script, keys or a value (an object with other fields beside keys is a value)', async () => {
    const yes = (_tui: unknown, _theme: unknown, _kb: unknown, done: (v: unknown) => void) => ({
      render: () => ['Allow? (enter)'],
      invalidate() {},
      handleInput: (data: string) => matchesKey(data, 'enter') && done('allowed'),
    })
    // An object with keys and other fields is a value: only `keys`, `columns` and `rows` make a script.
    const shortcut = { keys: ['enter'], label: 'Allow' }
    await session(yes as never, [{ keys: ['enter'] }, 'from the queue', () => ['a list', 'as the answer'], shortcut])
    for (let call = 1; call <= 4; call++) await t!.command('pick')
    expect(picked()).toEqual(['picked: "allowed"', 'picked: "from the queue"', 'picked: ["a list","as the answer"]', `picked: ${JSON.stringify(shortcut)}`])
    expect(t!.events.uiCallsFor('custom').map((call) => call.frames !== undefined)).toEqual([true, false, false, false])
    await expect(t!.command('pick')).rejects.toThrow('mockUI.custom ran out of answers: custom() is call 5, the queue has 4')
  })

  it('keys that are not an array are refused, naming the option', async () => {
    const bare = { extensions: [picker(() => ({ render: () => [], invalidate() {} }))] }
    await expect(createTestSession({ ...bare, mockUI: { custom: { keys: 'down' } as never } })).rejects.toThrow(
      'createTestSession: option "mockUI.custom.keys" must be an array of keys, got "down"',
    )
    await expect(createTestSession({ ...bare, mockUI: { custom: ['x', { keys: 'down' }] as never } })).rejects.toThrow(
      'createTestSession: option "mockUI.custom[1].keys" must be an array of keys, got "down"',
    )
    t = await createTestSession({ ...bare, mocks: { ui: { responses: { custom: { keys: 'down' } } } } })
    await expect(t.command('pick')).rejects.toThrow('mockUI.custom.keys must be an array of keys (["down", "enter"]), got "down"')
  })

  it("the mock spec's ui block drives a component too", async () => {
    t = await createTestSession({ extensions: [QUESTION], mocks: { ui: { responses: { custom: { keys: ['down', 'enter'] } } } } })
    await t.run(when('set up the app', [asks, says('SQLite.')]))
    expect(t).toHaveToolResult('question', { text: 'User selected: 2. SQLite' })
  })
})

describe('keystrokes', () => {
  it.each(['up', 'down', 'left', 'right', 'enter', 'escape', 'tab', 'space', 'backspace', 'delete', 'home', 'end', 'pageUp', 'pageDown', 'f1', 'f5', 'f12', 'ctrl+c', 'ctrl+a', 'alt+x', 'shift+tab', 'ctrl+left', 'shift+up', 'alt+right', 'x', '/'])(
    "%s is what pi-tui's parser reads back",
    (key) => {
      const [bytes] = keystrokes(key, 'k')
      expect(matchesKey(bytes!, key as never)).toBe(true)
      expect(parseKey(bytes!)).toBeDefined()
    },
  )
})
