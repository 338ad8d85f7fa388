// HTTP rules answer every client an extension may use: fetch, undici, node:http and node:https (axios, got),
// each request by the rules of its own session; beneath them the network guard still refuses the rest.
import http from 'node:http'
import { request as httpsRequest } from 'node:https'
import axios from 'axios'
import got from 'got'
import { Type } from 'typebox'
import { fetch as undiciFetch, request as undiciRequest } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, when, type MockBlocks, type TestSession } from '../src/index.js'
import { layFloor, type Floor } from './support/network-floor.mjs'

interface Reply {
  status: number
  tag: string
  body: string
}

/** POSTs `body` with an `x-key` header through one client, as an extension would; resolves to what came back. */
const clients: Record<string, (url: string, body: string) => Promise<Reply>> = {
  fetch: async (url, body) => {
    const response = await fetch(url, { method: 'POST', headers: { 'x-key': 'k' }, body })
    return { status: response.status, tag: response.headers.get('x-tag') ?? '', body: await response.text() }
  },
  'undici fetch': async (url, body) => {
    const response = await undiciFetch(url, { method: 'POST', headers: { 'x-key': 'k' }, body })
    return { status: response.status, tag: response.headers.get('x-tag') ?? '', body: await response.text() }
  },
  'undici request': async (url, body) => {
    const response = await undiciRequest(url, { method: 'POST', headers: { 'x-key': 'k' }, body })
    return { status: response.statusCode, tag: String(response.headers['x-tag'] ?? ''), body: await response.body.text() }
  },
  'node:http': (url, body) => nodeRequest(http.request, url.replace(/^https:/, 'http:'), body),
  'node:https': (url, body) => nodeRequest(httpsRequest, url, body),
  axios: async (url, body) => {
    const response = await axios.post<string>(url, body, { headers: { 'x-key': 'k', 'content-type': 'text/plain' }, responseType: 'text', validateStatus: () => true })
    return { status: response.status, tag: String(response.headers['x-tag'] ?? ''), body: response.data }
  },
  got: async (url, body) => {
    const response = await got.post(url, { body, headers: { 'x-key': 'k' }, throwHttpErrors: false, retry: { limit: 0 } })
    return { status: response.statusCode, tag: String(response.headers['x-tag'] ?? ''), body: response.body }
  },
}

function nodeRequest(request: typeof http.request, url: string, body: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'x-key': 'k' } }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, tag: String(response.headers['x-tag'] ?? ''), body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** A tool that calls an API through the client it is given, and reports what came back or how it failed. */
function apiClient(pi: ExtensionAPI) {
  pi.registerTool({
    name: 'call_api',
    label: 'Call API',
    description: 'POSTs to the status API',
    parameters: Type.Object({ client: Type.String(), url: Type.String() }),
    async execute(_id, params) {
      const text = await clients[params.client]!(params.url, 'ping').then(
        (reply) => `${reply.status} ${reply.tag} ${reply.body}`,
        (error: Error & { code?: string }) => `failed: ${error.code ?? error.message}`,
      )
      return { content: [{ type: 'text', text }], details: {} }
    },
  })
}

const statusRules = (answer: string): MockBlocks => ({
  http: {
    rules: [
      {
        match: { method: 'POST', url_pattern: '^https?://api\\.status\\.test/v1/', headers: { 'x-key': 'k' }, body_contains: 'ping' },
        response: { status: 201, headers: { 'x-tag': 'mocked' }, body: answer },
      },
    ],
  },
})

const names = Object.keys(clients)
const sessions: TestSession[] = []
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((t) => t.dispose()))
})

async function session(options: Parameters<typeof createTestSession>[0]): Promise<TestSession> {
  const t = await createTestSession({ extensions: [apiClient], ...options })
  sessions.push(t)
  return t
}

describe.each(names)('%s', (client) => {
  it('is answered by the rules and recorded with method, URL, headers and body', async () => {
    const t = await session({ mocks: statusRules('up') })
    await t.run(when('status', [calls('call_api', { client, url: 'https://api.status.test/v1/now?city=Oslo' }), says('up')]))
    expect(t).toHaveToolResult('call_api', { text: '201 mocked up' })
    const url = `${client === 'node:http' ? 'http' : 'https'}://api.status.test/v1/now?city=Oslo`
    expect(t.events.http).toEqual([expect.objectContaining({ method: 'POST', url, body: 'ping', status: 201, answeredBy: 'http.rules[0]' })])
    expect(t.events.http[0]!.headers).toMatchObject({ 'x-key': 'k' })
    expect(t).toHaveFetched('/v1/now?city=Oslo', { method: 'POST', headers: { 'x-key': 'k' } })
  })

  it('that no rule answers fails the test naming the request, even when the extension catches the failure', async () => {
    const t = await session({ mocks: statusRules('up') })
    const url = `${client === 'node:http' ? 'http' : 'https'}://api.other.test/v2/items`
    await expect(t.run(when('other', [calls('call_api', { client, url }), says('?')]))).rejects.toThrow(
      `Unhandled request: POST ${url} (no rule matched and http.default_response is not set)\n` +
        '  http.rules[0] did not match: the URL does not match /^https?:\\/\\/api\\.status\\.test\\/v1\\//',
    )
    expect(t.events.http).toEqual([expect.objectContaining({ url, answeredBy: 'unhandled' })])
  })
})

describe('each request is answered by the session whose code made it', () => {
  it.each(['axios', 'got', 'node:https', 'fetch', 'undici fetch', 'undici request'])('%s, with two sessions alive', async (client) => {
    const [a, b] = await Promise.all([session({ mocks: statusRules('from a') }), session({ mocks: statusRules('from b') })])
    const url = 'https://api.status.test/v1/now'
    await Promise.all([
      a.run(when('a', [calls('call_api', { client, url }), says('a')])),
      b.run(when('b', [calls('call_api', { client, url }), says('b')])),
    ])
    expect(a).toHaveToolResult('call_api', { text: '201 mocked from a' })
    expect(b).toHaveToolResult('call_api', { text: '201 mocked from b' })
    expect([a.events.http.length, b.events.http.length]).toEqual([1, 1])
  })

  it('a node:http request made outside every session with two alive fails naming the problem', async () => {
    await Promise.all([session({ mocks: statusRules('from a') }), session({ mocks: statusRules('from b') })])
    await expect(clients['node:http']!('http://api.status.test/v1/now', 'ping')).rejects.toThrow(
      'POST http://api.status.test/v1/now was made outside any test session while 2 sessions are alive; whose HTTP rules answer it cannot be known.',
    )
  })
})

describe('beneath the rules, nothing leaves the machine', () => {
  let floor: Floor
  beforeAll(async () => {
    floor = await layFloor()
  })
  afterAll(() => floor.restore())

  it.each(['axios', 'got', 'node:https', 'fetch', 'undici fetch', 'undici request'])("%s, unhandled with 'bypass', fails as a refused connection without connecting", async (client) => {
    const t = await session({ unhandled: 'bypass', propagateErrors: false })
    await t.run(when('status', [calls('call_api', { client, url: 'https://api.status.test/v1/now' }), says('down')]))
    expect(t.events.http).toEqual([expect.objectContaining({ answeredBy: 'refused', error: 'connect ECONNREFUSED api.status.test:443' })])
    expect(t.events.toolResultsFor('call_api')[0]!.text).toMatch(/^failed: (ECONNREFUSED|fetch failed)$/)
    expect(floor.stopped).toEqual([])
  })
})
