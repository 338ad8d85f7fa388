import { complete } from '@mariozechner/pi-ai'
import { describe, expect, it } from 'vitest'
import { createTestSession, forExtension, says, thinks, when } from '../environment/index.js'
import { CURRENT_LINE } from './support/pi-line.js'

const COMMIT = './test/fixtures/extensions/commit-message.ts'
const git = {
  exec: {
    rules: [
      { match: { cmd_exact: 'git', args_contain: ['diff'] }, result: { stdout: '+login form' } },
      { match: { cmd_exact: 'git', args_contain: ['commit'] }, result: { stdout: '' } },
    ],
  },
}

describe("an extension's own model calls", () => {
  it('are answered by forExtension(...) steps, apart from the agent steps, and recorded with who asked', async () => {
    // Two extensions: the stack tells which one asked.
    const t = await createTestSession({ extensions: [() => {}, COMMIT], mocks: git })
    await t.command('commit', undefined, [forExtension(thinks('A login form.'), says('feat: add login form'))])
    expect(t).toHaveExecuted('git', ['commit', '-m', 'feat: add login form'])
    expect(t.events.modelRequests).toHaveLength(1)
    const [request] = t.events.modelRequests
    expect(request).toMatchObject({ by: 'extension', step: 1, systemPrompt: 'You write one-line conventional commit messages.', extensionPath: expect.stringMatching(/commit-message\.ts$/) })
    expect(request!.messages).toMatchObject([{ role: 'user', content: 'Write a commit message for:\n+login form' }])
    expect(t.playbook).toEqual({ consumed: 1, remaining: 0 })
  })

  it("serve an agent_end handler's call while the agent's steps serve the agent", async () => {
    const t = await createTestSession({ extensions: [COMMIT], flags: { summarize: true } })
    await t.run(when('hi', [says('Hello.'), forExtension(says('The user greeted; the agent answered.'))]))
    expect(t.events.modelRequests.map((r) => r.by)).toEqual(['agent', 'extension'])
    expect(t.events.modelRequests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    const entry = t.session.sessionManager.getEntries().find((e) => e.type === 'custom')
    expect(entry).toMatchObject({ customType: 'summary', data: { text: 'The user greeted; the agent answered.' } })
  })

  it('fail the test when unscripted, naming the extension and the request; the extension gets a provider error', async () => {
    const t = await createTestSession({ extensions: [COMMIT], mocks: git })
    const failure = await t.command('commit').then(() => undefined, (error: Error) => error)
    expect(failure?.message).toMatch(
      /^Unscripted model call: extension \S+commit-message\.ts asked the model itself \(not through the agent loop\): system prompt "You write one-line conventional commit messages\.", last user message "Write a commit message for:\\n\+login form"; but turn 1 \("\/commit"\) has no forExtension\(\.\.\.\) answer\./,
    )
    expect(t.events.ui.find((call) => call.method === 'notify')?.args[0]).toMatch(/^The model failed: Unscripted model call: extension /)
    expect(t).not.toHaveExecuted('git', ['commit'])
    expect(t.events.modelRequests).toMatchObject([{ by: 'extension', step: 1 }])
  })

  it('a fire-and-forget call fails the run, with no unhandled rejection', async () => {
    let call: Promise<unknown> | undefined
    const t = await createTestSession({
      extensions: [
        (pi) => {
          pi.registerCommand('later', {
            handler: async (_args, ctx) => {
              call = complete(ctx.model!, { messages: [{ role: 'user', content: 'ping', timestamp: 0 }] })
            },
          })
        },
      ],
    })
    await expect(t.command('later')).rejects.toThrow(/^Unscripted model call: extension <inline:1> asked the model itself .*last user message "ping"; but turn 1/)
    await expect(call).resolves.toMatchObject({ stopReason: 'error', errorMessage: expect.stringMatching(/^Unscripted model call/) })
  })

  it('a call while no turn runs fails the test when it ends (verify())', async () => {
    let asked: Parameters<typeof complete>[0] | undefined
    const t = await createTestSession({
      extensions: [
        (pi) => {
          pi.registerCommand('model', { handler: async (_args, ctx) => void (asked = ctx.model) })
        },
      ],
    })
    await t.command('model')
    // As a timer the extension started would, after the command returned.
    const messages = [
      { role: 'user' as const, content: 'early', timestamp: 0 },
      { role: 'user' as const, content: 'late', timestamp: 1 },
    ]
    await expect(complete(asked!, { messages })).resolves.toMatchObject({ stopReason: 'error' })
    expect(() => t.verify()).toThrow(/^Unscripted model call: .*last user message "late"; but no turn is running/)
  })

  it('of concurrent sessions are each answered by their own script', async () => {
    const [a, b] = await Promise.all([createTestSession({ extensions: [COMMIT], mocks: git }), createTestSession({ extensions: [COMMIT], mocks: git })])
    await Promise.all([a.command('commit', undefined, [forExtension(says('feat: a'))]), b.command('commit', undefined, [forExtension(says('feat: b'))])])
    expect(a).toHaveExecuted('git', ['commit', '-m', 'feat: a'])
    expect(b).toHaveExecuted('git', ['commit', '-m', 'feat: b'])
  })

  it("are answered after Pi resets pi-ai's api registry (a reload)", async () => {
    const t = await createTestSession({ extensions: [COMMIT], mocks: git })
    await t.session.reload()
    await t.command('commit', undefined, [forExtension(says('fix: after reload'))])
    expect(t).toHaveExecuted('git', ['commit', '-m', 'fix: after reload'])
  })

  it('a call whose own signal is already aborted ends aborted and takes no answer, as a provider does', async () => {
    const stops: string[] = []
    const t = await createTestSession({
      extensions: [
        (pi) => {
          pi.registerCommand('cancelled', {
            handler: async (_args, ctx) => {
              const context = { messages: [{ role: 'user' as const, content: 'q', timestamp: 0 }] }
              const aborted = await complete(ctx.model!, context, { signal: AbortSignal.abort() })
              stops.push(`${aborted.stopReason}: ${aborted.errorMessage}`)
              const answer = await complete(ctx.model!, context)
              stops.push(`${answer.stopReason}: ${answer.content.map((block) => (block.type === 'text' ? block.text : '')).join('')}`)
            },
          })
        },
      ],
    })
    // The answer scripted for the command is left for the call after the aborted one.
    await t.command('cancelled', undefined, [forExtension(says('answered'))])
    expect(stops).toEqual(['aborted: Request was aborted', 'stop: answered'])
    expect(t.events.modelRequests).toMatchObject([{ by: 'extension' }, { by: 'extension' }])
    expect(t.playbook).toEqual({ consumed: 1, remaining: 0 })
  })

  it('a forExtension(...) answer nobody asked for is not consumed', async () => {
    const t = await createTestSession({ extensions: [COMMIT] })
    await expect(t.run(when('hi', [says('Hello.'), forExtension(says('unused'))]))).rejects.toThrow(
      'Playbook not consumed: 1 forExtension(...) answer(s) of turn 1 ("hi") were never asked for: no extension called the model itself that often.\n    extension call 1: says("unused")',
    )
  })

  it('t.emit(event, payload, actions) scripts the calls of the handlers it fires', async () => {
    const t = await createTestSession({
      extensions: [
        (pi) => {
          pi.on('session_before_compact', async (_event, ctx) => {
            const summary = await complete(ctx.model!, { messages: [{ role: 'user', content: 'summarize', timestamp: 0 }] })
            return { compaction: { summary: summary.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), firstKeptEntryId: 'x', tokensBefore: 1 } }
          })
        },
      ],
    })
    const result = await t.emit('session_before_compact', { preparation: {}, branchEntries: [], signal: new AbortController().signal }, [forExtension(says('short summary'))])
    expect(result).toMatchObject({ compaction: { summary: 'short summary' } })
  })

  it.runIf(CURRENT_LINE)('through ctx.modelRegistry.complete (Pi 1.x) too, with who asked', async () => {
    const t = await createTestSession({ extensions: [() => {}, './test/fixtures/extensions/registry-ask.ts'] })
    await t.command('ask', 'what now?', [forExtension(says('nothing'))])
    expect(t).toHaveNotified('nothing')
    expect(t.events.modelRequests).toMatchObject([{ by: 'extension', extensionPath: expect.stringMatching(/registry-ask\.ts$/) }])
    expect(t.events.modelRequests[0]!.messages).toMatchObject([{ role: 'user', content: 'what now?' }])
  })
})

it("Pi's own compaction asks the model through the agent's steps on both lines", async () => {
  const t = await createTestSession({
    extensions: [
      (pi) => {
        pi.registerCommand('squash', {
          handler: (_args, ctx) => new Promise<void>((resolve, reject) => ctx.compact({ onComplete: () => resolve(), onError: reject })),
        })
      },
    ],
  })
  // Long enough that Pi keeps only the recent part (its default keeps 20k tokens) and summarizes the rest.
  await t.run(when('hi', [says(`hello ${'word '.repeat(20_000)}`)]), when('and?', [says('more')]))
  await t.command('squash', undefined, [says('## Summary\nThe user said hi.')])
  expect(t.events.modelRequests.map((r) => r.by)).toEqual(['agent', 'agent', 'agent'])
  const compaction = t.session.sessionManager.getEntries().find((e) => e.type === 'compaction')
  expect(compaction).toMatchObject({ summary: expect.stringContaining('The user said hi.') })
})
