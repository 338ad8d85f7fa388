// HTTP in whichever pool runs this file. A request made outside every session fails as the network is off
// (in a fresh worker it is the first, so the interception loads and applies at that connection, outside any
// session); then, through that interception, an extension's request no rule answers fails the test naming
// it, and the session's rules answer the next. Every address is loopback.
import { Type } from 'typebox'
import { expect, it } from 'vitest'
import { calls, createTestSession, says, when, type MockBlocks } from 'vitest-environment-pi'

/** A session whose extension GETs a page of the status service in its `status` tool. */
const statusSession = (mocks?: MockBlocks) =>
  createTestSession({
    extensions: [
      (pi) =>
        pi.registerTool({
          name: 'status',
          label: 'Status',
          description: 'GETs a page of the status service',
          parameters: Type.Object({ path: Type.String() }),
          async execute(_id, params) {
            const response = await fetch(`http://127.0.0.1:2${params.path}`)
            return { content: [{ type: 'text', text: `${response.status} ${await response.text()}` }], details: {} }
          },
        }),
    ],
    ...(mocks ? { mocks } : {}),
  })

it('fails a request made outside every session as the network is off', async () => {
  await expect(fetch('http://127.0.0.1:2/none')).rejects.toMatchObject({
    cause: { message: 'Network access is disabled in tests: GET http://127.0.0.1:2/none (no test session is answering HTTP)' },
  })
})

it('fails a request no rule answers, naming it', async () => {
  const t = await statusSession()
  await expect(t.run(when('status?', [calls('status', { path: '/other' }), says('?')]))).rejects.toThrow(
    'Unhandled request: GET http://127.0.0.1:2/other (no rule matched and http.default_response is not set)',
  )
})

it("answers an extension's fetch from the session's rules", async () => {
  const t = await statusSession({ http: { rules: [{ match: { url_prefix: 'http://127.0.0.1:2/' }, response: { status: 200, body: 'all good' } }] } })
  await t.run(when('status?', [calls('status', { path: '/status' }), says('ok')]))
  expect(t).toHaveToolResult('status', { text: '200 all good' })
  expect(t).toHaveFetched('/status')
})
