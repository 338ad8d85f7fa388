// createMockPi answering by its arguments: a responder function, and Pi's JSON-mode reply as one key.
// The four scenarios are the ones pi-test-harness users have: echo the task, read an @file task, write a
// session file for --session-dir, answer in JSON mode for the extension to parse.
import { execFile, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Type } from '@mariozechner/pi-ai'
import { afterEach, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createMockPi, createTestSession, says, when, type MockPi, type TestSession } from '../src/index.js'

/** A subagent tool: runs `pi` with the arguments it is given in the session's cwd, as pi-subagents does. */
function subagentExtension(pi: ExtensionAPI) {
  pi.registerTool({
    name: 'subagent',
    label: 'Subagent',
    description: 'Runs a Pi subprocess',
    parameters: Type.Object({ args: Type.Array(Type.String()), taskFile: Type.Optional(Type.String()) }),
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      // A long task goes to Pi as a file, as `pi @task.md` reads it.
      if (params.taskFile) writeFileSync(join(ctx.cwd, params.taskFile), 'Summarize the changes in src/.')
      const result = await pi.exec('pi', params.args, { cwd: ctx.cwd })
      const text = result.code === 0 ? finalAnswer(result.stdout) : `pi failed (${result.code}): ${result.stderr}`
      return { content: [{ type: 'text', text }], details: {} }
    },
  })
}

/** What a subagent extension reads from `pi --mode json`: the text of the last assistant message_end; plain stdout otherwise. */
function finalAnswer(stdout: string): string {
  const events = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: { type: string; text?: string }[] } })
  const ends = events.filter((event) => event.type === 'message_end' && event.message?.role === 'assistant')
  if (ends.length === 0) return stdout
  return ends.at(-1)!.message!.content.map((part) => part.text ?? '').join('')
}

let mockPi: MockPi | undefined
let t: TestSession | undefined
afterEach(async () => {
  await t?.dispose()
  t = undefined
  mockPi?.dispose()
  mockPi = undefined
})

async function session(): Promise<TestSession> {
  mockPi!.install()
  // pi.exec runs the fake executable for real: no exec rule answers it.
  t = await createTestSession({ extensions: [subagentExtension], unhandled: 'bypass' })
  return t
}

describe('createMockPi with a responder', () => {
  it('echoes the task it is given', async () => {
    mockPi = createMockPi().onCall(({ args }) => ({ output: `Mock output for: ${args.at(-1)}\n` }))
    const t = await session()
    await t.run(
      when('delegate twice', [
        calls('subagent', { args: ['-p', 'run the tests'] }),
        calls('subagent', { args: ['-p', 'fix the lint'] }),
        says('Both done.'),
      ]),
    )
    expect(t.events.toolResultsFor('subagent').map((r) => r.text)).toEqual(['Mock output for: run the tests\n', 'Mock output for: fix the lint\n'])
    expect(mockPi.calls().map((call) => call.args)).toEqual([
      ['-p', 'run the tests'],
      ['-p', 'fix the lint'],
    ])
  })

  it('reads an @file task relative to the cwd it was started in', async () => {
    mockPi = createMockPi().onCall(({ args, cwd }) => {
      const file = args.find((arg) => arg.startsWith('@'))!.slice(1)
      return { json: `Read: ${readFileSync(resolve(cwd, file), 'utf8')}` }
    })
    const t = await session()
    await t.run(when('delegate', [calls('subagent', { args: ['--mode', 'json', '-p', '@task.md'], taskFile: 'task.md' }), says('ok')]))
    expect(t.events.toolResultsFor('subagent').map((r) => r.text)).toEqual(['Read: Summarize the changes in src/.'])
  })

  it('writes a session file for --session-dir, which the extension then finds', async () => {
    mockPi = createMockPi().onCall(({ args }) => {
      const dir = args[args.indexOf('--session-dir') + 1]!
      return { json: 'done', writeFiles: { [join(dir, 'session-1.jsonl')]: `${JSON.stringify({ type: 'session', version: 3, id: 'sub-1' })}\n` } }
    })
    const t = await session()
    const sessionDir = join(t.cwd, 'subagent-sessions')
    await t.run(when('delegate', [calls('subagent', { args: ['--mode', 'json', '--session-dir', sessionDir, '-p', 'task'] }), says('ok')]))
    expect(t.events.toolResultsFor('subagent').map((r) => r.text)).toEqual(['done'])
    expect(readdirSync(sessionDir)).toEqual(['session-1.jsonl'])
    expect(JSON.parse(readFileSync(join(sessionDir, 'session-1.jsonl'), 'utf8'))).toEqual({ type: 'session', version: 3, id: 'sub-1' })
  })

  it('gets the calls of parallel subprocesses each with its own arguments', async () => {
    mockPi = createMockPi().onCall(async ({ args }) => ({ output: args.at(-1)!.toUpperCase() }))
    mockPi.install()
    const run = (task: string) => new Promise<string>((done, fail) => execFile('pi', ['-p', task], (error, stdout) => (error ? fail(error) : done(stdout))))
    expect(await Promise.all(['alpha', 'beta', 'gamma'].map(run))).toEqual(['ALPHA', 'BETA', 'GAMMA'])
  })
})

describe("createMockPi's JSON mode", () => {
  it('answers as `pi --mode json` does with one key, which the extension parses', async () => {
    mockPi = createMockPi().onCall({ json: 'The tests pass.' })
    const t = await session()
    await t.run(when('delegate', [calls('subagent', { args: ['--mode', 'json', '-p', 'run the tests'] }), says('ok')]))
    expect(t.events.toolResultsFor('subagent').map((r) => r.text)).toEqual(['The tests pass.'])
  })

  it("prints Pi's event lines from agent_start to agent_end, the assistant message in message_end", () => {
    mockPi = createMockPi().onCall({ json: 'the answer' })
    mockPi.install()
    const lines = spawnSync('pi', ['--mode', 'json', '-p', 'q'], { encoding: 'utf8' }).stdout.trimEnd().split('\n').map((line) => JSON.parse(line))
    expect(lines.map((line) => line.type)).toEqual(['agent_start', 'turn_start', 'message_start', 'message_end', 'turn_end', 'agent_end'])
    const message = lines[3].message
    expect(message).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'the answer' }], stopReason: 'stop', model: 'mock-pi' })
    expect(message.usage).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } })
    expect(lines[5].messages).toEqual([message])
  })
})

describe('createMockPi bad input', () => {
  it('a responder that throws: the call fails naming it, and dispose() throws the same', async () => {
    mockPi = createMockPi().onCall(() => {
      throw new Error('no such fixture')
    })
    const t = await session()
    await t.run(when('delegate', [calls('subagent', { args: ['-p', 'run the tests'] }), says('failed')]))
    const message = 'mockPi: the responder for call 1 (pi -p "run the tests") threw: no such fixture'
    expect(t.events.toolResultsFor('subagent').map((r) => r.text)).toEqual([`pi failed (1): ${message}\n`])
    const disposed = mockPi
    mockPi = undefined
    expect(() => disposed.dispose()).toThrow(new Error(message))
    expect(existsSync(disposed.dir)).toBe(false)
  })

  it.each([
    ['a string', () => 'The tests pass.', 'expected a response object ({ output, json, jsonl, stderr, exitCode, delay, writeFiles }), got "The tests pass." (a string)'],
    ['a misspelt key', () => ({ ouptut: 'x' }), 'unknown key(s) ouptut; known: output, json, jsonl, stderr, exitCode, delay, writeFiles'],
    ['a wrong type', async () => ({ exitCode: '2' }), 'exitCode must be an integer from 0 to 255, got "2" (a string)'],
  ])('a responder that answers %s: the call fails naming it and what was wrong', (_what, responder, problem) => {
    mockPi = createMockPi().onCall(responder as never)
    mockPi.install()
    const message = `mockPi: the responder for call 1 (pi -p hi) answered: ${problem}`
    const run = () => new Promise<{ code: number | null; stderr: string }>((done) => execFile('pi', ['-p', 'hi'], (error, _stdout, stderr) => done({ code: error ? (error.code as number) : 0, stderr })))
    return run().then((result) => {
      expect(result).toEqual({ code: 1, stderr: `${message}\n` })
      const disposed = mockPi!
      mockPi = undefined
      expect(() => disposed.dispose()).toThrow(new Error(message))
    })
  })

  it('onCall checks a fixed response the same way, and refuses json with jsonl', () => {
    mockPi = createMockPi()
    expect(() => mockPi!.onCall('The tests pass.' as never)).toThrow(
      new TypeError('mockPi.onCall: expected a response object ({ output, json, jsonl, stderr, exitCode, delay, writeFiles }), got "The tests pass." (a string)'),
    )
    expect(() => mockPi!.onCall({ writeFiles: { 'a.txt': 1 } } as never)).toThrow('mockPi.onCall: writeFiles must be an object of file paths to strings, got {"a.txt":1} (an object)')
    expect(() => mockPi!.onCall({ json: 'a', jsonl: [] })).toThrow('mockPi.onCall: give json or jsonl, not both')
    expect(mockPi.callCount()).toBe(0)
  })
})
