// Green means right: a crashing guard, a second run() at once, fail loudly and name what went wrong.
import { existsSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, settleTempDirs, when, type TestSession } from '../src/index.js'

let t: TestSession | undefined
afterEach(async () => {
  await t?.dispose()
  t = undefined
})

/** A guard that crashes instead of deciding: Pi blocks the call (it fails closed), but the guard is broken. */
const crashingGuard = (crash: () => never) => (pi: ExtensionAPI) => {
  pi.on('tool_call', (event) => {
    if (event.toolName === 'bash') crash()
  })
}

describe('a tool_call handler that throws', () => {
  it('fails the run naming the extension, the event and the error; the block says it came from the crash', async () => {
    t = await createTestSession({
      extensions: [
        crashingGuard(() => {
          throw new TypeError("Cannot read properties of undefined (reading 'command')")
        }),
      ],
      mockTools: { bash: 'ran' },
    })
    await expect(t.run(when('clean', [calls('bash', { command: 'ls' }), says('done')]))).rejects.toThrow(
      `Extension <inline:1> threw in its "tool_call" handler: Cannot read properties of undefined (reading 'command')`,
    )
    expect(t.events.extensionErrors).toMatchObject([{ extensionPath: '<inline:1>', event: 'tool_call', error: "Cannot read properties of undefined (reading 'command')" }])
    expect(t.events.toolCalls).toMatchObject([{ toolName: 'bash', blocked: true, blockedByError: true }])
  })

  it('fails the run when the handler calls process.exit', async () => {
    t = await createTestSession({ extensions: [crashingGuard(() => process.exit(1))], mockTools: { bash: 'ran' } })
    await expect(t.run(when('clean', [calls('bash', { command: 'ls' }), says('done')]))).rejects.toThrow(
      'Extension <inline:1> threw in its "tool_call" handler: process.exit unexpectedly called with "1"',
    )
  })

  it('with propagateErrors: false, records the crash and lets the run pass', async () => {
    t = await createTestSession({
      extensions: [
        crashingGuard(() => {
          throw { code: 42 }
        }),
      ],
      mockTools: { bash: 'ran' },
      propagateErrors: false,
    })
    await t.run(when('clean', [calls('bash', { command: 'ls' }), says('done')]))
    expect(t.events.extensionErrors).toMatchObject([{ event: 'tool_call', error: '{"code":42}' }])
    expect(t.events.toolCalls[0]).toMatchObject({ blocked: true, blockReason: '{"code":42}', blockedByError: true })
  })

  it('a guard that decides to block is not an error', async () => {
    t = await createTestSession({
      extensions: [(pi) => void pi.on('tool_call', () => ({ block: true, reason: 'no shell' }))],
      mockTools: { bash: 'ran' },
    })
    await t.run(when('clean', [calls('bash', { command: 'ls' }), says('done')]))
    expect(t.events.extensionErrors).toEqual([])
    expect(t.events.toolCalls[0]).toEqual({ step: 1, toolCallId: 'call_1_1', toolName: 'bash', input: { command: 'ls' }, blocked: true, blockReason: 'no shell' })
  })
})

describe('two runs at once on one session', () => {
  it('rejects the second with its own message; the first completes and checks its whole script', async () => {
    t = await createTestSession({ mockTools: { bash: 'ran' } })
    const first = t.run(when('first', [calls('bash', { command: 'ls' }), says('done')]))
    const second = t.run(when('second', [says('too')]))
    await expect(second).rejects.toThrow(
      'run() while run(when("first")) is still running on this session: await it first (a session runs one prompt at a time)',
    )
    await first
    expect(t.playbook).toMatchObject({ consumed: 2, remaining: 0 })
    expect(t.events.lastAssistantText()).toBe('done')
  })

  it('refuses an emit() or command() during a run, naming the run', async () => {
    t = await createTestSession({ mockTools: { bash: 'ran' } })
    const first = t.run(when('first', [calls('bash', { command: 'ls' }), says('done')]))
    await expect(t.emit('input', { text: 'x' })).rejects.toThrow('emit() while run(when("first")) is still running on this session')
    await expect(t.command('review')).rejects.toThrow('command() while run(when("first")) is still running on this session')
    await first
    expect(t.playbook.consumed).toBe(2)
  })
})

describe('a tool that never settles', () => {
  it('does not hang dispose(): it is named, and the temp dirs are removed all the same', async () => {
    const stuck = await createTestSession({ mockTools: { bash: () => new Promise<never>(() => {}) } })
    const run = stuck.run(when('hang', [calls('bash', { command: 'sleep forever' }), says('never')]))
    run.catch(() => {})
    await expect.poll(() => stuck.events.toolCalls.length).toBe(1)
    await expect(stuck.dispose()).rejects.toThrow(
      'dispose(): the agent did not stop within 1000 ms of abort(): tool "bash" (toolCallId call_1_1, playbook step 1) was still running and ignored its abort signal.',
    )
    await settleTempDirs()
    expect(existsSync(stuck.cwd)).toBe(false)
  })
})
