// createMockPi: a fake `pi` on PATH for extensions that spawn Pi itself (subagents, handoffs).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { Type } from '@mariozechner/pi-ai'
import { afterEach, describe, expect, it } from 'vitest'
import { calls, createMockPi, createTestSession, says, when, type MockPi, type TestSession } from '../src/index.js'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { execResultOf } from './support/pi-line.js'

/** Runs `pi` the way a child process would find it: through PATH. */
function runPi(args: string[], cwd?: string) {
  const result = spawnSync('pi', args, { encoding: 'utf8', ...(cwd ? { cwd } : {}) })
  if (result.error) throw result.error
  return { stdout: result.stdout, stderr: result.stderr, code: result.status }
}

/** An extension whose tool asks a Pi subprocess, as subagent extensions do. */
function askPiExtension(pi: ExtensionAPI) {
  pi.registerTool({
    name: 'ask_pi',
    label: 'Ask Pi',
    description: 'Runs a Pi subprocess with a prompt',
    parameters: Type.Object({ prompt: Type.String() }),
    async execute(_toolCallId, params) {
      const result = await pi.exec('pi', ['-p', params.prompt])
      return {
        content: [{ type: 'text', text: result.code === 0 ? result.stdout : `pi failed (${result.code}): ${result.stderr}` }],
        details: result,
      }
    },
  })
}

let mockPi: MockPi | undefined
let t: TestSession | undefined
const temps: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mock-pi-test-'))
  temps.push(dir)
  return dir
}

afterEach(async () => {
  await t?.dispose()
  t = undefined
  mockPi?.dispose()
  mockPi = undefined
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('createMockPi', () => {
  it('install puts pi first on PATH; uninstall restores PATH exactly', () => {
    const before = process.env.PATH
    mockPi = createMockPi()
    mockPi.install()
    mockPi.install() // a second install changes nothing

    expect(process.env.PATH!.split(delimiter)[0]).toBe(mockPi.dir)
    expect(process.env.PATH).toBe(`${mockPi.dir}${delimiter}${before}`)
    expect(spawnSync('sh', ['-c', 'command -v pi'], { encoding: 'utf8' }).stdout.trim()).toBe(join(mockPi.dir, 'pi'))

    mockPi.uninstall()
    expect(process.env.PATH).toBe(before)
  })

  it('uninstall leaves PATH unset when it was unset', () => {
    const saved = process.env.PATH
    delete process.env.PATH
    try {
      mockPi = createMockPi()
      mockPi.install()
      expect(process.env.PATH!.split(delimiter)[0]).toBe(mockPi.dir)
      mockPi.uninstall()
      expect('PATH' in process.env).toBe(false)
    } finally {
      process.env.PATH = saved
    }
  })

  it('dispose restores PATH and removes the folder', () => {
    const before = process.env.PATH
    mockPi = createMockPi()
    mockPi.install()
    mockPi.dispose()

    expect(process.env.PATH).toBe(before)
    expect(existsSync(mockPi.dir)).toBe(false)
  })

  it('answers an extension that spawns pi with the queued output, exit code and stderr', async () => {
    mockPi = createMockPi()
    mockPi.onCall({ output: 'The tests pass.\n' }).onCall({ stderr: 'model overloaded\n', exitCode: 2 })
    mockPi.install()
    // pi.exec runs the fake executable for real: no exec rule answers it.
    t = await createTestSession({ extensions: [askPiExtension], unhandled: 'bypass' })
    await t.run(
      when('ask a subagent twice', [
        calls('ask_pi', { prompt: 'run the tests' }),
        calls('ask_pi', { prompt: 'again' }),
        says('The subagent failed the second time.'),
      ]),
    )

    expect(t.events.toolResultsFor('ask_pi').map((r) => [r.text, r.details])).toEqual([
      ['The tests pass.\n', execResultOf({ stdout: 'The tests pass.\n', stderr: '', code: 0, killed: false })],
      ['pi failed (2): model overloaded\n', execResultOf({ stdout: '', stderr: 'model overloaded\n', code: 2, killed: false })],
    ])
    // pi.exec runs in the session's cwd.
    expect(mockPi.calls()).toEqual([
      { args: ['-p', 'run the tests'], cwd: realpathSync(t.cwd) },
      { args: ['-p', 'again'], cwd: realpathSync(t.cwd) },
    ])
  })

  it('answers in queue order, then repeats the last response', () => {
    mockPi = createMockPi()
    mockPi.onCall({ output: 'first' }).onCall({ output: 'second', exitCode: 3 })
    mockPi.install()

    expect([runPi([]), runPi([]), runPi([])]).toEqual([
      { stdout: 'first', stderr: '', code: 0 },
      { stdout: 'second', stderr: '', code: 3 },
      { stdout: 'second', stderr: '', code: 3 },
    ])
    expect(mockPi.callCount()).toBe(3)
  })

  it('gives parallel calls distinct responses, each claimed once', async () => {
    mockPi = createMockPi()
    for (let i = 0; i < 16; i++) mockPi.onCall({ output: `answer ${i}` })
    mockPi.install()
    const { execFile } = await import('node:child_process')
    const run = () => new Promise<string>((resolve, reject) => execFile('pi', [], (error, stdout) => (error ? reject(error) : resolve(stdout))))
    const answers = await Promise.all(Array.from({ length: 16 }, run))
    expect(answers.sort()).toEqual(Array.from({ length: 16 }, (_, i) => `answer ${i}`).sort())
    expect(mockPi.callCount()).toBe(16)
  })

  it('writes jsonl one JSON document per line, after output', () => {
    mockPi = createMockPi()
    mockPi.onCall({ output: 'starting\n', jsonl: [{ type: 'message', text: 'hi' }, { type: 'agent_end' }] })
    mockPi.install()

    const { stdout } = runPi(['--mode', 'json', '-p', 'hi'])
    expect(stdout).toBe('starting\n{"type":"message","text":"hi"}\n{"type":"agent_end"}\n')
    expect(stdout.split('\n').slice(1, -1).map((line) => JSON.parse(line))).toEqual([{ type: 'message', text: 'hi' }, { type: 'agent_end' }])
  })

  it('writes files relative to the caller\'s cwd', () => {
    const cwd = tempDir()
    mockPi = createMockPi()
    mockPi.onCall({ writeFiles: { 'handoff/summary.md': '# Summary\n', 'notes.txt': 'n' }, output: 'wrote files' })
    mockPi.install()

    expect(runPi(['-p', 'summarize'], cwd)).toMatchObject({ stdout: 'wrote files', code: 0 })
    expect(readFileSync(join(cwd, 'handoff/summary.md'), 'utf8')).toBe('# Summary\n')
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('n')
    expect(existsSync(join(process.cwd(), 'handoff'))).toBe(false)
  })

  it('waits delay milliseconds before answering', () => {
    mockPi = createMockPi()
    mockPi.onCall({ output: 'slow', delay: 400 })
    mockPi.install()

    const started = Date.now()
    expect(runPi([]).stdout).toBe('slow')
    expect(Date.now() - started).toBeGreaterThanOrEqual(400)
  })

  it('rejects unknown response keys, naming the known ones, and queues nothing', () => {
    mockPi = createMockPi()
    expect(() => mockPi!.onCall({ stdout: 'hi', exitcode: 1 } as never)).toThrow(
      new TypeError('mockPi.onCall: unknown key(s) stdout, exitcode; known: output, json, jsonl, stderr, exitCode, delay, writeFiles'),
    )
    mockPi.install()
    expect(runPi([]).code).toBe(1)
  })

  it('records each call\'s args and cwd; reset forgets calls and responses', () => {
    const cwd = tempDir()
    mockPi = createMockPi()
    mockPi.onCall({ output: 'ok' })
    mockPi.install()
    runPi(['-p', 'one'], cwd)
    runPi(['--mode', 'json', 'two words'])

    expect(mockPi.calls()).toEqual([
      { args: ['-p', 'one'], cwd: realpathSync(cwd) },
      { args: ['--mode', 'json', 'two words'], cwd: realpathSync(process.cwd()) },
    ])

    mockPi.reset()
    expect(mockPi.calls()).toEqual([])
    expect(runPi([]).code).toBe(1)
  })

  it('exits 1 with a message when no response is queued', () => {
    mockPi = createMockPi()
    mockPi.install()

    expect(runPi(['-p', 'hi'])).toEqual({ stdout: '', stderr: 'mock pi: no response queued (call onCall first)\n', code: 1 })
  })
})
