// `before_provider_request`: the scripted model's provider payload goes through the extensions' handlers, as
// a real provider's does; what they change is what the model is asked, and the request records the payload.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestSession, says, when, type TestSession } from '../src/index.js'
import type { ExtensionAPI } from '../src/pi/types.js'

const PROVIDER_PAYLOAD = 'node_modules/@mariozechner/pi-coding-agent/examples/extensions/provider-payload.ts'

let t: TestSession | undefined
afterEach(async () => {
  await t?.dispose()
  t = undefined
})

const userTexts = (messages: readonly { role: string; content: unknown }[]) =>
  messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : (m.content as { text?: string }[]).map((b) => b.text).join('')))

describe('before_provider_request', () => {
  it("hands provider-payload.ts the request's payload, which it logs", async () => {
    t = await createTestSession({ extensions: [PROVIDER_PAYLOAD], files: { '.pi/settings.json': {} } })
    await t.run(when('hello there', [says('Hi.')]))

    const log = readFileSync(join(t.cwd, '.pi', 'provider-payload.log'), 'utf8')
    expect(log).toContain('"model": "scripted"')
    expect(log).toContain('hello there')
    expect(t.events.modelRequests[0]!.payload).toMatchObject({ model: 'scripted', systemPrompt: expect.any(String), messages: expect.any(Array) })
  })

  it('what a handler changes is what the model is asked, and the payload keeps what it added', async () => {
    t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) =>
          pi.on('before_provider_request', (event) => {
            const payload = event.payload as { systemPrompt: string; messages: unknown[] }
            return { ...payload, temperature: 0, systemPrompt: 'Answer in French.', messages: [...payload.messages, { role: 'user', content: 'Be brief.', timestamp: 0 }] }
          }),
      ],
    })
    await t.run(when('hello', [says('Bonjour.')]))

    const [request] = t.events.modelRequests
    expect(request!.payload).toMatchObject({ temperature: 0, systemPrompt: 'Answer in French.' })
    expect(request!.systemPrompt).toBe('Answer in French.')
    expect(userTexts(request!.messages)).toEqual(['hello', 'Be brief.'])
  })

  it('records no payload without a handler', async () => {
    t = await createTestSession()
    await t.run(when('hello', [says('Hi.')]))
    expect(t.events.modelRequests[0]).not.toHaveProperty('payload')
  })

  it('fails the test when a handler returns something that is no payload', async () => {
    t = await createTestSession({ extensions: [(pi: ExtensionAPI) => pi.on('before_provider_request', () => 'oops' as never)] })
    await expect(t.run(when('hello', [says('Hi.')]))).rejects.toThrow(
      'A "before_provider_request" handler returned "oops" (a string) as the payload: the scripted model\'s provider sends { model, systemPrompt, messages, tools }',
    )
  })

  it('fails the test when a handler throws, naming it', async () => {
    t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) =>
          pi.on('before_provider_request', () => {
            throw new Error('no payload for you')
          }),
      ],
    })
    await expect(t.run(when('hello', [says('Hi.')]))).rejects.toThrow('threw in its "before_provider_request" handler: no payload for you')
  })
})
