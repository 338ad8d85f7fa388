// Pi's other edges, each on an extension Pi ships where there is one: the `input` event, `pi.events`
// between two extensions of one session, and the editor's text.
import { afterEach, describe, expect, it } from 'vitest'
import { createTestSession, says, when, type TestSession } from '../src/index.js'
import type { ExtensionAPI } from '../src/pi/types.js'

const EXAMPLES = 'node_modules/@mariozechner/pi-coding-agent/examples/extensions'
const INPUT_TRANSFORM = `${EXAMPLES}/input-transform.ts`
const EVENT_BUS = `${EXAMPLES}/event-bus.ts`

let t: TestSession | undefined
afterEach(async () => {
  await t?.dispose()
  t = undefined
})

describe('the input event (input-transform.ts)', () => {
  it('sends the model the text a handler transformed the prompt into', async () => {
    t = await createTestSession({ extensions: [INPUT_TRANSFORM] })
    await t.run(when('?quick What is TypeScript?', [says('JavaScript with types.')]))
    expect(t).toHaveSentToModel('Respond briefly in 1-2 sentences: What is TypeScript?')
  })

  it('asks the model nothing when a handler handles the prompt itself', async () => {
    t = await createTestSession({ extensions: [INPUT_TRANSFORM] })
    await t.run(when('ping'))
    expect(t).toHaveNotified('pong')
    expect(t.events.modelRequests).toEqual([])
  })
})

describe('pi.events between extensions', () => {
  it("carries event-bus.ts's /emit to a second extension listening on the bus", async () => {
    const heard: unknown[] = []
    t = await createTestSession({ extensions: [EVENT_BUS, (pi: ExtensionAPI) => void pi.events.on('my:notification', (data) => heard.push(data))] })
    await t.command('emit', 'deploy done')
    expect(heard).toContainEqual({ message: 'deploy done', from: '/emit command' })
    expect(t).toHaveNotified('Event from /emit command: deploy done')
  })

  it('fails the test when a listener throws, naming the event', async () => {
    t = await createTestSession({
      extensions: [
        EVENT_BUS,
        (pi: ExtensionAPI) =>
          void pi.events.on('my:notification', () => {
            throw new Error('listener broke')
          }),
      ],
    })
    await expect(t.command('emit', 'x')).rejects.toThrow('threw in its "events:my:notification" handler: listener broke')
  })
})

describe('the editor text', () => {
  it('is what the extension set, read as t.editorText', async () => {
    t = await createTestSession({
      mockUI: { editorText: 'draft' },
      extensions: [(pi: ExtensionAPI) => pi.registerCommand('sign', { handler: async (_args, ctx) => ctx.ui.setEditorText(`${ctx.ui.getEditorText()} -- signed`) })],
    })
    expect(t.editorText).toBe('draft')
    await t.command('sign')
    expect(t.editorText).toBe('draft -- signed')
  })
})
