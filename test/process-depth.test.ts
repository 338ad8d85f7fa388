// The same tests against an in-process session and the real `pi` CLI in RPC mode. Slow: every process
// session starts Pi (seconds on a loaded machine), so this file belongs with the slow end-to-end tests.
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { calls, createTestSession, says, waitsFor, when, type TestSession } from '../environment/index.js'

// A loaded machine takes seconds to start Pi; these bound the wait, they measure nothing.
const SLOW = 120_000
const gate = { extensions: ['./examples/permission-gate/index.ts'], mockTools: { bash: (p: Record<string, unknown>) => `ran ${p.command}` } }
const counter = { extensions: ['./test/fixtures/process/turn-counter.ts'] }
const review = { extensions: ['./examples/review-mode/index.ts'], mockTools: { read: 'export const answer = 42', bash: 'ran' } }

describe.each([
  { depth: 'in process', process: false },
  { depth: 'in a pi process', process: true },
])('the same test $depth', ({ process }) => {
  it('blocks rm -rf when the user says no', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...gate, process, mockUI: { confirm: false } })
    await t.run(when('clean up', [calls('bash', { command: 'rm -rf /' }), says('I could not.')]))
    expect(t).toHaveBlocked('bash', 'Blocked by the user: rm -rf /')
    expect(t).toHavePrompted('confirm', 'Run a dangerous command?')
    expect(t.events.lastAssistantText()).toBe('I could not.')
  })

  it('runs the mocked tool when the user says yes, and warns', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...gate, process, mockUI: { confirm: true } })
    await t.run(when('clean up', [calls('bash', { command: 'rm -rf build' }), says('Cleaned.')]))
    expect(t).not.toHaveBlocked('bash')
    expect(t).toHaveToolResult('bash', { text: 'ran rm -rf build' })
    expect(t.events.toolResults[0]!.mocked).toBe(true)
    expect(t).toHaveNotified('Allowed: rm -rf build', 'warning')
  })

  it('runs a command and offers the model what it left', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...review, process })
    await t.command('review')
    expect(t).toHaveSetStatus('review', 'review mode: read-only (read, grep, find, ls)')
    await t.run(when('review src/', [calls('read', { path: 'src/a.ts' }), says('Looks fine.')]))
    expect(t).toHaveToolResult('read', { text: 'export const answer = 42' })
    expect(t.events.modelRequests.at(-1)!.tools.toSorted()).toEqual(['find', 'grep', 'ls', 'read'])
    expect(t).toHaveSentToModel('[REVIEW MODE]')
  })

  it('fails a turn whose script ran out, naming it', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...gate, process })
    await expect(t.run(when('list', [calls('bash', { command: 'ls' })]))).rejects.toThrow(/Playbook exhausted: Pi asked the model for step 2/)
  })

  it("mocks an extension's own tool, whose hooks still fire, and records widgets and titles", { timeout: SLOW }, async () => {
    const t = await createTestSession({ extensions: ['./test/fixtures/process/word-count.ts'], mockTools: { word_count: 'forty-two' }, process })
    await t.run(when('count', [calls('word_count', { text: 'a b c' }), says('Counted.')]))
    expect(t).toHaveToolResult('word_count', { text: 'forty-two' })
    expect(t.events.toolResults[0]!.mocked).toBe(true)
    expect(t.events.widgets).toEqual([{ key: 'word-count', lines: ['word_count ran 1 time(s)'] }])
    expect(t.events.uiCallsFor('setTitle').map((call) => call.args)).toEqual([['pi - 1 count(s)']])
  })

  it('runs an unmocked tool for real', { timeout: SLOW }, async () => {
    const t = await createTestSession({ extensions: ['./test/fixtures/process/word-count.ts'], process })
    await t.run(when('count', [calls('word_count', { text: 'a b c' }), says('Counted.')]))
    expect(t).toHaveToolResult('word_count', { text: '3' })
    expect(t.events.toolResults[0]!.mocked).toBe(false)
  })

  it('forks before a user message and starts a new session through Pi: the same calls, instances and records', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...counter, process })
    await t.run(when('one', [says('1')]), when('two', [says('2')]))
    const forkable = await t.forkMessages()
    expect(forkable.map((message) => message.text)).toEqual(['one', 'two'])
    await expect(t.fork(forkable[1]!.entryId)).resolves.toEqual({ cancelled: false, selectedText: 'two' })
    // As in Pi's interactive mode, the forked message is back in the editor.
    expect(t.editorText).toBe('two')
    expect(t.instance).toBe(2)
    expect(t.events.ofInstance(1)).toHaveNotified('start startup turns=0')
    expect(t.events.ofInstance(2)).toHaveNotified('start fork turns=1')
    expect(t.events.ofInstance(1)).not.toHaveNotified('start fork turns=1')
    expect((await t.forkMessages()).map((message) => message.text)).toEqual(['one'])
    await expect(t.newSession()).resolves.toEqual({ cancelled: false })
    await t.run(when('three', [says('3')]))
    expect(t.events.instances()).toEqual([
      { instance: 1, name: 'createTestSession()' },
      { instance: 2, name: `fork(${JSON.stringify(forkable[1]!.entryId)})` },
      { instance: 3, name: 'newSession()' },
    ])
    expect(t.events.ofInstance(3)).toHaveNotified('start new turns=0')
    expect(t.events.ofInstance(3)).toHaveSaid('3')
    expect(t.events.ofInstance(2)).not.toHaveSaid('3')
    expect((await t.forkMessages()).map((message) => message.text)).toEqual(['three'])
  })

  it("resumes the session's saved file, where the extension restores its state; a cancelled fork replaces nothing", { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...counter, process, flags: { 'cancel-fork': true } })
    await t.run(when('one', [says('1')]), when('two', [says('2')]))
    const file = t.saveSession(join(t.home, 'saved.jsonl'))
    const [first] = await t.forkMessages()
    await expect(t.fork(first!.entryId)).resolves.toEqual({ cancelled: true })
    expect(t.instance).toBe(1)
    await t.newSession()
    expect(t.events.ofInstance(2)).toHaveNotified('start new turns=0')
    await expect(t.resume(file)).resolves.toEqual({ cancelled: false })
    expect(t.events.ofInstance(3)).toHaveNotified('start resume turns=2')
    expect((await t.forkMessages()).map((message) => message.text)).toEqual(['one', 'two'])
  })

  it('t.abort() from a mocked tool ends the run aborted, as Esc does', { timeout: SLOW }, async () => {
    const t: TestSession = await createTestSession({ process, mockTools: { bash: () => (t.abort(), 'partial output') } })
    await t.run(when('run it', [calls('bash', { command: 'sleep 100' })]))
    expect(t.events.messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'aborted' })
    expect(t.events.toolResults).toMatchObject([{ toolName: 'bash', text: 'partial output' }])
  })

  it('t.abort() while the model answers reaches Pi, which aborts the request', { timeout: SLOW }, async () => {
    // The held answer ends only when Pi aborts the request: an abort that never reached Pi is the turn's timeout.
    const t: TestSession = await createTestSession({ process: process && { turnTimeout: 30_000 } })
    await t.run(when('deploy', [waitsFor(() => (t.abort(), new Promise(() => {}))), says('never')]))
    expect(t.events.messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'aborted' })
    await t.run(when('again', [says('ok')]))
    expect(t.events.lastAssistantText()).toBe('ok')
  })

  it('names an unknown command', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...review, process })
    await expect(t.command('nope')).rejects.toThrow(/No command "\/nope" is registered\. Registered commands: .*\/review/)
  })
})

describe('a pi process', () => {
  it('fails the turn when an extension writes to stdout, naming the line', { timeout: SLOW }, async () => {
    const t = await createTestSession({ ...gate, extensions: ['./test/fixtures/process/stdout-printer.ts'], process: true })
    await expect(t.run(when('list', [calls('bash', { command: 'ls' }), says('Listed.')]))).rejects.toThrow(
      'The pi process wrote to stdout outside the RPC protocol: "debug: checking bash"',
    )
  })

  it('hands argv and env to the child, where the flag reaches the factory', { timeout: SLOW }, async () => {
    const t = await createTestSession({ extensions: ['./test/fixtures/process/preset.ts'], process: { argv: ['--preset', 'fast'], env: { PRESET_NOTE: 'from the test' } } })
    expect(t).toHaveNotified('preset: fast')
    expect(t).toHaveNotified('note: from the test')
    expect(t).toHaveSetStatus('preset', 'fast')
  })

  it('refuses beyond loopback inside the child, as the guard does in the worker; loopback goes through', { timeout: SLOW }, async () => {
    // 0.0.0.0 is not loopback to the guard, yet unguarded Linux connects it to this machine: no packet leaves it either way.
    const server = createServer((socket) => socket.end())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      const t = await createTestSession({ extensions: ['./test/fixtures/process/probe.ts'], process: true })
      await t.run(when('probe', [calls('probe', { host: '127.0.0.1', port }), calls('probe', { host: '0.0.0.0', port }), says('Probed.')]))
      expect(t.events.toolResultsFor('probe').map((result) => result.text)).toEqual(['connected', `ENETUNREACH Network access is disabled in tests: 0.0.0.0:${port}`])
    } finally {
      server.close()
    }
  })

  it('gives the flag its default without argv, as pi does', { timeout: SLOW }, async () => {
    const t = await createTestSession({ extensions: ['./test/fixtures/process/preset.ts'], process: true })
    expect(t).toHaveNotified('preset: thorough')
  })

  it('fails to start naming the extension that failed to load, with the stderr of pi', { timeout: SLOW }, async () => {
    await expect(createTestSession({ extensions: ['./test/fixtures/extensions/throwing-factory.ts'], process: true })).rejects.toThrow(
      /the pi process did not start: The pi process exited with code 1\.\nThe pi process's stderr:\n[^]*throwing-factory\.ts[^]*config file missing/,
    )
  })

  it('loads a package through its pi manifest, as after pi install', { timeout: SLOW }, async () => {
    const t = await createTestSession({ process: { packages: ['./test/fixtures/packages/good'] } })
    await t.run(when('greet Ada', [calls('greet', { name: 'Ada' }), says('Greeted.')]))
    expect(t).toHaveToolResult('greet', { text: expect.stringContaining('Ada') })
  })

  it('fails naming a manifest path that is not in the package', async () => {
    await expect(createTestSession({ process: { packages: ['./test/fixtures/process/wrong-manifest'] } })).rejects.toThrow(
      /packages\[0\] \(.*wrong-manifest\): the pi manifest of pi-wrong-manifest lists extension "dist\/extensions\/goodbye\.js", which is not in the package/,
    )
  })

  it('refuses an inline factory, which cannot cross into a process', async () => {
    await expect(createTestSession({ extensions: [() => {}], process: true })).rejects.toThrow(
      'createTestSession({ process: true }): extensions[0] is a factory function; a pi process loads extensions from files',
    )
  })

  it('names a bad process option', async () => {
    await expect(createTestSession({ process: { argv: '--preset fast' } as never })).rejects.toThrow(
      'createTestSession: option "process.argv" must be an array of command-line arguments, got "--preset fast" (a string)',
    )
  })
})

// The first test times out while the child hangs in a tool_call handler; the second checks that the end of
// the first (the session's dispose, with the runner's group kill) left no process behind.
describe('a pi process in a test that times out', () => {
  let hung: TestSession | undefined
  const pidsOf = (t: TestSession) => (/^pids (\d+) (\d+)$/.exec(String(t.events.uiCallsFor('notify')[0]?.args[0])) ?? []).slice(1).map(Number)
  // A zombie (ended, not yet reaped by whoever adopted it) runs nothing: Linux shows its state as Z.
  const isAlive = (pid: number) => {
    try {
      globalThis.process.kill(pid, 0)
    } catch {
      return false
    }
    const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : ''
    return !/^\d+ \(.*\) Z /.test(stat)
  }

  it.fails('times out while the child hangs', { timeout: 20_000 }, async () => {
    hung = await createTestSession({ extensions: ['./test/fixtures/process/hangs-in-tool-call.ts'], mockTools: { bash: 'ran' }, process: { startupTimeout: 15_000 } })
    await hung.run(when('list', [calls('bash', { command: 'ls' }), says('Listed.')]))
  })

  it('left no process of the child behind: neither pi nor what it started', () => {
    expect(hung, 'the first test started no session').toBeDefined()
    const pids = pidsOf(hung!)
    expect(pids, 'the hung extension never said its pids').toHaveLength(2)
    expect(pids.filter(isAlive)).toEqual([])
  })
})
