import { describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { aborts, calls, createTestSession, says, thinks, when } from '../environment/index.js'

/** Records how each run ended, as an extension that reacts to Esc reads it. */
function stopWatcher(stops: string[], signals: (boolean | undefined)[] = []) {
  return (pi: ExtensionAPI) => {
    // The run's abort signal, as extension handlers see it while Pi works.
    pi.on('message_end', async (event, ctx) => {
      if (event.message.role === 'assistant') signals.push(ctx.signal?.aborted)
    })
    pi.on('agent_end', async (event) => {
      const last = event.messages.at(-1)
      stops.push(last?.role === 'assistant' ? `${last.stopReason}: ${last.errorMessage ?? ''}` : `${last?.role}`)
    })
  }
}

describe('a user abort', () => {
  it('aborts() is Esc while the model answers: Pi ends the run with stop reason "aborted"', async () => {
    const stops: string[] = []
    const signals: (boolean | undefined)[] = []
    const t = await createTestSession({ extensions: [stopWatcher(stops, signals)], mockTools: { bash: 'a b' } })
    await t.run(when('deploy', [calls('bash', { command: 'ls' }), thinks('Now the deploy.'), aborts()]))
    expect(stops).toEqual(['aborted: Request was aborted'])
    expect(signals).toEqual([false, true])
    const last = t.events.messages.at(-1)
    expect(last).toMatchObject({ role: 'assistant', stopReason: 'aborted', errorMessage: 'Request was aborted', content: [{ type: 'thinking', thinking: 'Now the deploy.' }] })
    expect(t.events.all.filter((e) => e.type === 'agent_end')).toHaveLength(1)
    // The session takes the next prompt as Pi does after Esc.
    await t.run(when('again', [says('ok')]))
    expect(t.events.lastAssistantText()).toBe('ok')
  })

  it('steps after aborts() are not consumed: Pi stops asking the model', async () => {
    const t = await createTestSession()
    await expect(t.run(when('x', [aborts(), says('never')]))).rejects.toThrow(
      /Playbook not consumed: turn 1 \("x"\) ended after 1 of 2 step\(s\)\.\n  Last consumed: step 1, aborts\(\)/,
    )
  })

  it('t.abort() leaves the steps after it: the diagnostic says the test aborted, with the timeline', async () => {
    const t = await createTestSession({ mockTools: { bash: () => (t.abort(), 'partial output') } })
    const error = (await t.run(when('run it', [calls('bash', { command: 'sleep 100' }), says('done')])).catch((thrown: unknown) => thrown)) as Error
    expect(error.message).toContain(
      [
        '  Remaining:',
        '    step 2: says("done")',
        'The test called t.abort() during this turn, and Pi stopped it there: script only the steps before the abort in this when(...).',
        '',
        'Session timeline:',
        '  turn 1: "run it"',
        '    bash({"command":"sleep 100"}) → "partial output"',
      ].join('\n'),
    )
    expect(error.message).not.toContain('says(...), fails(...) or aborts()')
  })

  it('t.abort() from a mocked tool: the tool sees its signal abort, and the run ends aborted', async () => {
    const stops: string[] = []
    let signalAborted: boolean | undefined
    const t = await createTestSession({
      extensions: [stopWatcher(stops)],
      mockTools: {
        bash: (_params, { signal }) => {
          t.abort()
          signalAborted = signal?.aborted
          return 'partial output'
        },
      },
    })
    // Pi asks the model once more after the tool; that request is aborted and takes no step.
    await t.run(when('run it', [calls('bash', { command: 'sleep 100' })]))
    expect(stops).toEqual(['aborted: Request was aborted'])
    expect(t.events.toolResults).toMatchObject([{ toolName: 'bash', text: 'partial output' }])
    expect(signalAborted).toBe(true)
  })

  it('t.abort() while Pi is idle does nothing', async () => {
    const t = await createTestSession()
    t.abort()
    await t.run(when('hi', [says('hello')]))
    expect(t.events.lastAssistantText()).toBe('hello')
  })
})
