// The matchers print values as the rest of `expect` does, and compare them with the testers a user added.
import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
// As a user imports it: each session is disposed when its test ends.
import { calls, createTestSession, says, when } from '../environment/index.js'

/** The message an assertion fails with, without colours. */
function failureOf(assertion: () => void): string {
  try {
    assertion()
  } catch (error) {
    return stripVTControlCharacters((error as Error).message)
  }
  return expect.unreachable('the assertion passed')
}

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
})
