// The matchers print values as the rest of `expect` does, and compare them with the testers a user added.
import { describe, expect, it } from 'vitest'
// As a user imports it: each session is disposed when its test ends.
import { calls, createTestSession, says, when } from '../environment/index.js'
import { failureOf } from './support/failure-of.js'

describe('matcher messages', () => {
  it('prints asymmetric matchers as Vitest does', async () => {
    const t = await createTestSession({ mockTools: { bash: 'ok' } })
    await t.run(when('status', [calls('bash', { command: 'ls' }), says('done')]))
    expect(failureOf(() => expect(t).toHaveCalledTool('bash', { command: expect.stringContaining('git') }))).toBe(
      [
        'expect(session).toHaveCalledTool(name, params)',
        '',
        'Expected bash to be called with {"command": StringContaining "git"}.',
        '',
        'bash was called 1 time(s), never with matching params:',
        '  1. bash({"command": "ls"})',
        '',
        'Session timeline:',
        '  turn 1: "status"',
        '›   bash({"command": "ls"}) → "ok"',
        '    said "done"',
        '',
        'Diff against the closest call:',
      ].join('\n'),
    )
  })

  it('prints cyclic details as [Circular] instead of crashing', async () => {
    const tree: Record<string, unknown> = { name: 'src' }
    tree.children = [{ name: 'a.ts', parent: tree }]
    const t = await createTestSession({ tools: ['ls'], mockTools: { ls: { content: [{ type: 'text', text: 'a.ts' }], details: tree } } })
    await t.run(when('list', [calls('ls', { path: 'src' }), says('done')]))
    expect(failureOf(() => expect(t).toHaveToolResult('ls', { details: { name: 'lib' } }))).toBe(
      [
        'expect(session).toHaveToolResult(name, { text, isError, details })',
        '',
        'Expected a result of ls matching {"details": {"name": "lib"}}.',
        '',
        'ls returned:',
        '  1. ok (mocked): "a.ts" details {"children": [{"name": "a.ts", "parent": [Circular]}], "name": "src"}',
        '',
        'Session timeline:',
        '  turn 1: "list"',
        '›   ls({"path": "src"}) → "a.ts"',
        '    said "done"',
      ].join('\n'),
    )
  })

  it('prints BigInt as 12n', async () => {
    const t = await createTestSession({ mockTools: { read: { content: [{ type: 'text', text: 'x' }], details: { bytes: 12n } } } })
    await t.run(when('read', [calls('read', { path: 'a.bin' }), says('done')]))
    expect(failureOf(() => expect(t).toHaveToolResult('read', { details: { bytes: 13n } }))).toBe(
      [
        'expect(session).toHaveToolResult(name, { text, isError, details })',
        '',
        'Expected a result of read matching {"details": {"bytes": 13n}}.',
        '',
        'read returned:',
        '  1. ok (mocked): "x" details {"bytes": 12n}',
        '',
        'Session timeline:',
        '  turn 1: "read"',
        '›   read({"path": "a.bin"}) → "x"',
        '    said "done"',
      ].join('\n'),
    )
  })

  it('says what was called when .not fails', async () => {
    const t = await createTestSession({ mockTools: { bash: 'ok' } })
    await t.run(when('clean', [calls('bash', { command: 'rm -rf dist' }), says('done')]))
    expect(failureOf(() => expect(t).not.toHaveCalledTool('bash', { command: expect.stringMatching(/^rm /) }))).toBe(
      [
        'expect(session).not.toHaveCalledTool(name, params)',
        '',
        'Expected bash not to be called with {"command": StringMatching /^rm /}.',
        '',
        'It was called 1 time(s) that way:',
        '  1. bash({"command": "rm -rf dist"})',
        '',
        'Session timeline:',
        '  turn 1: "clean"',
        '›   bash({"command": "rm -rf dist"}) → "ok"',
        '    said "done"',
      ].join('\n'),
    )
  })

  it('compares with the testers added by expect.addEqualityTesters', async () => {
    const t = await createTestSession({
      extensions: [(pi) => pi.on('session_start', async () => void (await pi.exec('cat', ['src/a.ts'])))],
      mocks: { exec: { default_result: { stdout: 'hello' } } },
      mockTools: { read: (p) => ({ content: [{ type: 'text', text: 'hello' }], details: { path: p.path } }) },
    })
    await t.run(when('read it', [calls('read', { path: 'src/a.ts' }), says('done')]))
    expect(t).not.toHaveCalledTool('read', { path: './src/a.ts' })

    // From here on, for the rest of this file: a path with or without a leading "./" is the same path.
    expect.addEqualityTesters([
      (a: unknown, b: unknown) =>
        typeof a === 'string' && typeof b === 'string' && (a.startsWith('./') || b.startsWith('./'))
          ? a.replace(/^\.\//, '') === b.replace(/^\.\//, '')
          : undefined,
    ])
    expect(t).toHaveCalledTool('read', { path: './src/a.ts' })
    expect(t).toHaveToolResult('read', { details: { path: './src/a.ts' } })
    expect(t).toHaveExecuted('cat', ['./src/a.ts'])
  })

  it('shows dialogs with their options and answers, blocked calls by params, widgets, entries and frames', async () => {
    const t = await createTestSession({
      extensions: [
        (pi) => {
          pi.on('tool_call', () => ({ block: true, reason: 'no' }))
          pi.registerCommand('go', {
            handler: async (_args, ctx) => {
              await ctx.ui.select('Pick', ['a', 'b'], { timeout: 5000, signal: new AbortController().signal })
              ctx.ui.setWidget('todos', ['1. milk'])
              pi.appendEntry('plan', { step: 1 })
              await ctx.ui.custom(() => ({ render: () => ['hello'], invalidate() {}, handleInput: () => {} }) as never)
            },
          })
        },
      ],
      mockUI: { select: 'b', custom: { keys: [] } },
      mockTools: { bash: 'ok' },
    })
    await t.run(when('go', [calls('bash', { command: 'ls' }), says('done')]))
    await expect(t.command('go')).rejects.toThrow('did not call done() after 0 key(s)')
    // The session's timeline, which ends each message; `marked` is the line the matcher looked for.
    const story = (marked?: 'bash' | 'select' | 'setWidget' | 'custom') => {
      const mark = (line: string, name: typeof marked) => `${name === marked ? '›' : ' '}   ${line}`
      return [
        '',
        'Session timeline:',
        '  turn 1: "go"',
        mark('bash({"command": "ls"}) → blocked: "no"', 'bash'),
        '    said "done"',
        '  turn 2: "/go"',
        mark('select("Pick", ["a", "b"], {"signal": true, "timeout": 5000}) → "b"', 'select'),
        mark('setWidget("todos", ["1. milk"], undefined)', 'setWidget'),
        mark('custom([Function anonymous], undefined) → undefined', 'custom'),
      ]
    }
    expect(failureOf(() => expect(t).toHavePrompted('select', 'Pick', { answer: 'a', options: { timeout: 1000 } }))).toBe(
      [
        'expect(session).toHavePrompted(method, title, { answer, options })',
        '',
        'Expected a select dialog titled "Pick" with options {"timeout": 1000} answered "a".',
        '',
        'Calls made:',
        '  1. select("Pick", ["a", "b"], {"signal": true, "timeout": 5000}) → "b"',
        ...story('select'),
      ].join('\n'),
    )
    expect(failureOf(() => expect(t).toHaveBlocked('bash', { command: 'git status' }, 'no'))).toBe(
      [
        'expect(session).toHaveBlocked(name, params, reason)',
        '',
        'Expected bash with {"command": "git status"} to be blocked with a reason matching "no".',
        '',
        'bash was called 1 time(s), never with matching params:',
        '  1. bash({"command": "ls"}) [blocked: no]',
        ...story('bash'),
      ].join('\n'),
    )
    expect(failureOf(() => expect(t).not.toHaveSetWidget('todos', /milk/))).toBe(
      [
        'expect(session).not.toHaveSetWidget(key, lines)',
        '',
        'Expected no widget "todos" set with /milk/.',
        '',
        'Widgets set:',
        '  1. todos: ["1. milk"]',
        ...story('setWidget'),
      ].join('\n'),
    )
    expect(failureOf(() => expect(t).toHaveAppendedEntry('plan', { step: 2 }))).toBe(
      [
        'expect(session).toHaveAppendedEntry(customType, data)',
        '',
        'Expected pi.appendEntry of an entry "plan" with data {"step": 2}.',
        '',
        'Appended:',
        '  1. plan: {"step": 1}',
        ...story(),
      ].join('\n'),
    )
    // The blocked bash call is drawn too, as Pi shows it: its row ends with how long it took.
    const bashRow = [' $ ls', '', ' no', '', ' Took <time>', ''].map((line) => `       "${line}"`)
    expect(failureOf(() => expect(t).toHaveRendered('bye')).replace(/Took \d+\.\ds/g, 'Took <time>')).toBe(
      [
        'expect(session).toHaveRendered(text)',
        '',
        'Expected a line of a custom() component or a renderer to match "bye".',
        '',
        'Drawn:',
        '  1. custom #1, first frame:',
        '       "hello"',
        '  2. tool "bash", collapsed:',
        '       ""',
        '       ""',
        ...bashRow,
        '  3. tool "bash", expanded:',
        '       ""',
        '       ""',
        ...bashRow,
        ...story('custom'),
      ].join('\n'),
    )
  })

  describe('the session timeline', () => {
    // Ten turns of a read and a reply, the fifth reading the one file asked about.
    async function longSession() {
      const t = await createTestSession({ mockTools: { read: 'text' } })
      for (let n = 1; n <= 10; n++) await t.run(when(`step ${n}`, [calls('read', { path: n === 5 ? 'five.md' : `${n}.md` }), says(`read ${n}`)]))
      return t
    }
    const timelineOf = (message: string) => message.slice(message.indexOf('Session timeline:'))

    it('shows at most a screen: the lines around what the matcher looked for, and counts the rest', async () => {
      const t = await longSession()
      expect(timelineOf(failureOf(() => expect(t).not.toHaveCalledTool('read', { path: 'five.md' })))).toBe(
        [
          'Session timeline:',
          '  … 7 earlier line(s)',
          '    read({"path": "3.md"}) → "text"',
          '    said "read 3"',
          '  turn 4: "step 4"',
          '    read({"path": "4.md"}) → "text"',
          '    said "read 4"',
          '  turn 5: "step 5"',
          '›   read({"path": "five.md"}) → "text"',
          '    said "read 5"',
          '  turn 6: "step 6"',
          '    read({"path": "6.md"}) → "text"',
          '    said "read 6"',
          '  turn 7: "step 7"',
          '  … 11 later line(s)',
        ].join('\n'),
      )
    })

    it('ends with the end of the story when nothing it looked for happened', async () => {
      const t = await longSession()
      const story = timelineOf(failureOf(() => expect(t).toHaveCalledTool('bash')))
      expect(story.split('\n')).toHaveLength(1 + 1 + 12)
      expect(story).toMatch(/^Session timeline:\n  … 18 earlier line\(s\)\n/)
      expect(story.endsWith('  turn 10: "step 10"\n    read({"path": "10.md"}) → "text"\n    said "read 10"')).toBe(true)
    })

    it('cuts long prompts and replies, and leaves out a session where nothing happened', async () => {
      const t = await createTestSession()
      expect(failureOf(() => expect(t).toHaveSaid('hi'))).not.toContain('Session timeline')
      await t.run(when('x'.repeat(100), [says('y'.repeat(100))]))
      expect(timelineOf(failureOf(() => expect(t).toHaveSaid('hi')))).toBe(
        ['Session timeline:', `  turn 1: "${'x'.repeat(59)}…"`, `›   said "${'y'.repeat(59)}…"`].join('\n'),
      )
    })
  })
})
