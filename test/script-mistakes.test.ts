// A mistake in a playbook, or a throw that is not an Error, reads as what happened and where.
import { afterEach, describe, expect, it } from 'vitest'
import { aborts, calls, createTestSession, forExtension, parallel, responds, says, when, type Action, type TestSession } from '../src/index.js'

const ACTIONS = 'calls(...), says(...), thinks(...), parallel(...), responds(...), fails(...), aborts(), waitsFor(...), forExtension(...)'

describe('a playbook entry that is not an action', () => {
  it.each([
    [null, `actions[0] is null, not an action (${ACTIONS})`],
    ['done', `actions[0] is "done" (a string), not an action (${ACTIONS}): a reply is says("done")`],
    [{ text: 'done' }, `actions[0] is {"text":"done"} (an object), not an action (${ACTIONS})`],
    [says, `actions[0] is function says, not an action (${ACTIONS}): call it, says(...)`],
  ])('fails at when(): %j', (entry, message) => {
    expect(() => when('x', [entry as Action])).toThrow(new TypeError(`when("x", actions): ${message}`))
  })

  it('names its index among the actions', () => {
    expect(() => when('x', [calls('bash', { command: 'ls' }), undefined as never])).toThrow(`when("x", actions): actions[1] is undefined, not an action (${ACTIONS})`)
  })

  it('fails at when() for actions that are not an array, and at calls() and parallel() for their arguments', () => {
    expect(() => when('x', says('hi') as never)).toThrow('when("x", actions): actions must be an array, got {"kind":"say","text":"hi"} (an object)')
    expect(() => calls(5 as never)).toThrow('calls(tool, params): tool must be a tool name (a string), got 5 (a number)')
    expect(() => calls('bash', 'ls' as never)).toThrow('calls("bash", params): params must be an object or a function that returns one, got "ls" (a string)')
    expect(() => parallel(calls('read'), says('x') as never)).toThrow('parallel(...calls): calls[1] is says("x"), not a calls(...) action')
  })
})

describe('a run that goes wrong', () => {
  let t: TestSession | undefined
  afterEach(async () => {
    await t?.dispose()
    t = undefined
  })

  it('reads several problems of one run as one numbered list, each once', async () => {
    t = await createTestSession({
      extensions: [
        (pi) =>
          pi.registerCommand('both', {
            description: 'runs two commands nothing mocks',
            handler: async () => {
              // The extension goes on after each refusal: both are reported.
              await pi.exec('git', ['status']).catch(() => {})
              await pi.exec('npm', ['test']).catch(() => {})
            },
          }),
      ],
    })
    const error = (await t.command('both').catch((thrown: unknown) => thrown)) as Error
    expect(error.message).toMatch(/^2 problems:\n\n1\. .*git status[^]*\n\n2\. .*npm test/)
    expect(error.message.split('git status')).toHaveLength(2)
    // Nothing for a reporter to print a second time.
    expect(error.cause).toBeUndefined()
  })

  it('names the turn, the step and the tool when a late-bound params function throws, and fails the run', async () => {
    t = await createTestSession({ mockTools: { bash: 'ok' } })
    const boom = () => {
      throw new Error('boom')
    }
    await expect(t.run(when('go', [calls('bash', boom), says('done')]))).rejects.toThrow('Turn 1, step 1: the params function of calls("bash") threw: boom')
    expect(t.events.toolCalls).toEqual([])
  })

  it('counts steps across turns, and writes a thrown value that is not an Error as it is', async () => {
    t = await createTestSession({ mockTools: { bash: 'ok' } })
    await t.run(when('first', [says('hello')]))
    const params = () => {
      throw { code: 42 }
    }
    await expect(t.run(when('second', [parallel(calls('read', { path: 'a' }), calls('bash', params))]))).rejects.toThrow(
      'Turn 2, step 2: the params function of calls("bash") threw: {"code":42}',
    )
  })

  it('says what a params function returned when it is not params', async () => {
    t = await createTestSession()
    await expect(t.run(when('go', [calls('bash', (() => undefined) as never)]))).rejects.toThrow(
      'Turn 1, step 1: the params function of calls("bash") returned undefined, not an object of params',
    )
  })

  it.each([
    [undefined, 'undefined'],
    [{ code: 42 }, '{"code":42}'],
    ['disk full', 'disk full'],
  ])("reports a handler's throw of %j as %s", async (thrown, written) => {
    t = await createTestSession({
      extensions: [
        (pi) =>
          pi.on('agent_end', () => {
            throw thrown
          }),
      ],
    })
    await expect(t.run(when('hi', [says('hello')]))).rejects.toThrow(`Extension <inline:1> threw in its "agent_end" handler: ${written}`)
    expect(t.events.extensionErrors).toMatchObject([{ event: 'agent_end', error: written }])
  })
})

describe('responds(...) holds the blocks of one message', () => {
  it.each([
    [[], 'responds(...actions) needs at least one action'],
    [[aborts()], 'responds(...actions): actions[0] is aborts(), not a block of a message (calls, says, thinks, parallel, fails)'],
    [[says('a'), responds(says('b'))], 'responds(...actions): actions[1] is responds(says("b")), not a block of a message'],
    [['done'], 'responds(...actions): actions[0] is "done" (a string), not an action'],
  ])('%j', (actions, message) => {
    expect(() => responds(...(actions as never[]))).toThrow(message)
  })
})

describe('forExtension(...) holds model responses only', () => {
  it.each([
    [[], 'forExtension(...actions) needs at least one action, e.g. forExtension(says("feat: add login"))'],
    [[aborts()], 'forExtension(...actions): actions[0] is aborts(), not a model response (calls, says, thinks, parallel, responds, fails)'],
    [[says('a'), forExtension(says('b'))], 'forExtension(...actions): actions[1] is forExtension(says("b")), not a model response (calls, says, thinks, parallel, responds, fails)'],
    [['done'], 'forExtension(...actions): actions[0] is "done" (a string), not an action'],
  ])('%j', (actions, message) => {
    expect(() => forExtension(...(actions as never[]))).toThrow(message)
  })
})
