import { describe, expect, it } from 'vitest'
import type { InterceptedAnswer, InterceptedRequest } from '../../src/mocks/http-interceptor.js'
import { createHttpMock, type HttpMockOptions } from '../../src/mocks/http.js'
import type { HttpCallRecord } from '../../src/records/records.js'
import type { HttpMock } from '../../src/mocks/spec/types.js'

function harness(mocks: HttpMock, unhandled: HttpMockOptions['unhandled'] = 'error') {
  const records: HttpCallRecord[] = []
  const warnings: string[] = []
  const unhandledErrors: Error[] = []
  const mock = createHttpMock(mocks, {
    unhandled,
    onUnhandled: (error) => unhandledErrors.push(error),
    record: (call) => records.push(call),
    warn: (message) => warnings.push(message),
  })
  return { mock, records, warnings, unhandledErrors }
}

function request(url: string, extra: Partial<InterceptedRequest> = {}): InterceptedRequest {
  return { method: 'GET', url, headers: {}, body: '', ...extra }
}

/** The body of a response, or `error: <message>` for a failed connection. */
function bodyOf(answer: InterceptedAnswer): string {
  return answer instanceof Error ? `error: ${answer.message}` : answer.body
}

const fallback = { default_response: { status: 404, body: 'default' } }

describe('createHttpMock matching', () => {
  it('url_exact equals the full URL', () => {
    const { mock } = harness({ rules: [{ match: { url_exact: 'https://api.test/v1/items?page=2' }, response: { status: 200, body: 'items' } }], ...fallback })
    expect(bodyOf(mock.handle(request('https://api.test/v1/items?page=2')))).toBe('items')
    expect(bodyOf(mock.handle(request('https://api.test/v1/items')))).toBe('default')
  })

  it('url_prefix starts the full URL', () => {
    const { mock } = harness({ rules: [{ match: { url_prefix: 'https://api.test/v1/' }, response: { status: 200, body: 'v1' } }], ...fallback })
    expect(bodyOf(mock.handle(request('https://api.test/v1/users/7')))).toBe('v1')
    expect(bodyOf(mock.handle(request('https://api.test/v2/users/7')))).toBe('default')
  })

  it('url_pattern is a RegExp tested against the full URL', () => {
    const { mock } = harness({ rules: [{ match: { url_pattern: '/users/\\d+$' }, response: { status: 200, body: 'user' } }], ...fallback })
    expect(bodyOf(mock.handle(request('https://api.test/users/42')))).toBe('user')
    expect(bodyOf(mock.handle(request('https://api.test/users/me')))).toBe('default')
  })

  it('method ignores case, and an omitted method matches any', () => {
    const { mock } = harness({
      rules: [
        { match: { method: 'POST', url_prefix: 'https://api.test/' }, response: { status: 201, body: 'created' } },
        { match: { url_prefix: 'https://api.test/' }, response: { status: 200, body: 'any' } },
      ],
    })
    expect(bodyOf(mock.handle(request('https://api.test/x', { method: 'post' })))).toBe('created')
    expect(bodyOf(mock.handle(request('https://api.test/x', { method: 'DELETE' })))).toBe('any')
  })

  it('headers need each listed header present, names ignoring case, values exactly', () => {
    const { mock } = harness({ rules: [{ match: { headers: { Authorization: 'Bearer t0k', 'X-Api': 'v2' } }, response: { status: 200, body: 'authed' } }], ...fallback })
    expect(bodyOf(mock.handle(request('https://a.test/', { headers: { authorization: 'Bearer t0k', 'x-api': 'v2', extra: '1' } })))).toBe('authed')
    expect(bodyOf(mock.handle(request('https://a.test/', { headers: { AUTHORIZATION: 'Bearer t0k', 'X-API': 'v2' } })))).toBe('authed')
    expect(bodyOf(mock.handle(request('https://a.test/', { headers: { authorization: 'bearer t0k', 'x-api': 'v2' } })))).toBe('default')
    expect(bodyOf(mock.handle(request('https://a.test/', { headers: { authorization: 'Bearer t0k' } })))).toBe('default')
    // Exactly: a value that merely contains the listed one does not match.
    expect(bodyOf(mock.handle(request('https://a.test/', { headers: { authorization: 'Bearer t0k-other', 'x-api': 'v2' } })))).toBe('default')
  })

  it('body_contains looks for text in the request body', () => {
    const { mock } = harness({ rules: [{ match: { body_contains: '"op":"sum"' }, response: { status: 200, body: 'summed' } }], ...fallback })
    expect(bodyOf(mock.handle(request('https://a.test/', { method: 'POST', body: '{"op":"sum","xs":[1]}' })))).toBe('summed')
    expect(bodyOf(mock.handle(request('https://a.test/', { method: 'POST', body: '{"op":"max"}' })))).toBe('default')
  })

  it('needs every given key to hold', () => {
    const { mock } = harness({
      rules: [{ match: { method: 'PUT', url_prefix: 'https://a.test/', headers: { 'content-type': 'text/plain' }, body_contains: 'x' }, response: { status: 200, body: 'all' } }],
      ...fallback,
    })
    const base = { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'xyz' }
    expect(bodyOf(mock.handle(request('https://a.test/1', base)))).toBe('all')
    expect(bodyOf(mock.handle(request('https://a.test/1', { ...base, method: 'POST' })))).toBe('default')
    expect(bodyOf(mock.handle(request('https://b.test/1', base)))).toBe('default')
    expect(bodyOf(mock.handle(request('https://a.test/1', { ...base, headers: {} })))).toBe('default')
    expect(bodyOf(mock.handle(request('https://a.test/1', { ...base, body: 'abc' })))).toBe('default')
  })

  it('first match wins', () => {
    const { mock } = harness({
      rules: [
        { match: { url_prefix: 'https://a.test/' }, response: { status: 200, body: 'broad' } },
        { match: { url_exact: 'https://a.test/exact' }, response: { status: 200, body: 'exact' } },
      ],
    })
    expect(bodyOf(mock.handle(request('https://a.test/exact')))).toBe('broad')
  })

  it('refuses to build a mock with an invalid url_pattern, naming the rule', () => {
    expect(() => harness({ rules: [{ match: { url_prefix: 'x' }, response: { status: 200 } }, { match: { url_pattern: '*a' }, response: { status: 200 } }] })).toThrow(
      'http.rules[1].match.url_pattern: Invalid regular expression: /*a/: Nothing to repeat',
    )
  })
})

describe('createHttpMock responses', () => {
  it('answers body text with the given status and headers', () => {
    const { mock } = harness({ rules: [{ match: { url_prefix: 'https://' }, response: { status: 418, headers: { 'X-Teapot': 'yes' }, body: 'short and stout' } }] })
    expect(mock.handle(request('https://a.test/'))).toEqual({ status: 418, headers: { 'X-Teapot': 'yes' }, body: 'short and stout' })
  })

  it('answers an empty body when a response gives none', () => {
    const { mock } = harness({ rules: [{ match: { url_prefix: 'https://' }, response: { status: 204 } }] })
    expect(mock.handle(request('https://a.test/'))).toEqual({ status: 204, headers: {}, body: '' })
  })

  it('serializes body_json with content-type application/json', () => {
    const { mock } = harness({ rules: [{ match: { url_prefix: 'https://' }, response: { status: 200, body_json: { ok: true, items: [1, 2] } } }] })
    expect(mock.handle(request('https://a.test/'))).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true,"items":[1,2]}' })
  })

  it('keeps a content type the response sets for body_json, whatever its case', () => {
    const { mock } = harness({
      rules: [{ match: { url_prefix: 'https://' }, response: { status: 200, headers: { 'Content-Type': 'application/problem+json' }, body_json: { title: 'nope' } } }],
    })
    expect(mock.handle(request('https://a.test/'))).toEqual({ status: 200, headers: { 'Content-Type': 'application/problem+json' }, body: '{"title":"nope"}' })
  })

  it('answers from default_response when no rule matches', () => {
    const { mock, records } = harness({ rules: [{ match: { url_exact: 'https://a.test/' }, response: { status: 200 } }], default_response: { status: 503, body_json: { down: true } } })
    expect(mock.handle(request('https://b.test/'))).toEqual({ status: 503, headers: { 'content-type': 'application/json' }, body: '{"down":true}' })
    expect(records.map((r) => r.answeredBy)).toEqual(['http.default_response'])
  })
})

describe('createHttpMock times', () => {
  it('stops using a rule once its times ran out and lists it in the unhandled error distinctly', () => {
    const { mock, unhandledErrors } = harness({
      rules: [
        { match: { url_exact: 'https://a.test/other' }, response: { status: 200 } },
        { match: { method: 'GET', url_prefix: 'https://a.test/' }, response: { status: 200, body: 'once' }, times: 1 },
      ],
    })
    expect(bodyOf(mock.handle(request('https://a.test/x')))).toBe('once')
    const message = [
      'Unhandled request: GET https://a.test/x (no rule matched and http.default_response is not set)',
      '  http.rules[0] did not match: the URL is not "https://a.test/other"',
      '  http.rules[1] matched but its times (1) ran out',
    ].join('\n')
    expect(bodyOf(mock.handle(request('https://a.test/x')))).toBe(`error: ${message}`)
    expect(unhandledErrors.map((e) => e.message)).toEqual([message])
  })

  it('lists pending rules until they answered their times', () => {
    const { mock } = harness({
      rules: [
        { match: { method: 'POST', url_exact: 'https://a.test/' }, response: { status: 200 }, times: 2 },
        { match: { headers: { 'x-k': 'v' }, body_contains: 'b' }, response: { status: 200 }, times: 1 },
        { match: { url_pattern: '.' }, response: { status: 200 } },
      ],
    })
    mock.handle(request('https://a.test/', { method: 'POST' }))
    expect(mock.pending()).toEqual([
      {
        label: 'http.rules[0]',
        description: 'method POST, url_exact "https://a.test/"',
        times: 2,
        uses: 1,
        line: 'http.rules[0] (method POST, url_exact "https://a.test/") answered 1 of 2 times',
      },
      {
        label: 'http.rules[1]',
        description: 'headers {"x-k":"v"}, body_contains "b"',
        times: 1,
        uses: 0,
        line: 'http.rules[1] (headers {"x-k":"v"}, body_contains "b") answered 0 of 1 times',
      },
    ])
    mock.handle(request('https://a.test/', { method: 'POST' }))
    mock.handle(request('https://a.test/', { headers: { 'X-K': 'v' }, body: 'abc' }))
    expect(mock.pending()).toEqual([])
  })
})

describe('createHttpMock unhandled', () => {
  const rules: HttpMock['rules'] = [
    { match: { method: 'GET', url_prefix: 'https://api.test/' }, response: { status: 200 } },
    { match: { url_pattern: '^https://api\\.test/v2/' }, response: { status: 200 } },
    { match: { headers: { Authorization: 'Bearer a', 'x-trace': '1' } }, response: { status: 200 } },
    { match: { body_contains: 'needle' }, response: { status: 200 } },
  ]
  const unhandledRequest = request('https://api.test/v1/items', { method: 'POST', headers: { authorization: 'Bearer b' }, body: 'haystack' })
  const message = [
    'Unhandled request: POST https://api.test/v1/items (no rule matched and http.default_response is not set)',
    '  http.rules[0] did not match: the method is POST, not GET',
    '  http.rules[1] did not match: the URL does not match /^https:\\/\\/api\\.test\\/v2\\//',
    '  http.rules[2] did not match: header "Authorization" is "Bearer b", not "Bearer a"; header "x-trace" is missing',
    '  http.rules[3] did not match: the body does not contain "needle"',
  ].join('\n')

  it("'error' fails the request with an error listing every rule tried and why, and reports it", () => {
    const { mock, unhandledErrors, warnings, records } = harness({ rules }, 'error')
    const answer = mock.handle(unhandledRequest)
    expect(answer).toBeInstanceOf(Error)
    expect(bodyOf(answer)).toBe(`error: ${message}`)
    expect(unhandledErrors).toEqual([answer])
    expect(warnings).toEqual([])
    expect(records).toEqual([
      { method: 'POST', url: 'https://api.test/v1/items', headers: { authorization: 'Bearer b' }, body: 'haystack', error: message, answeredBy: 'unhandled' },
    ])
  })

  it("'error' against 5,000 rules names the 10 that failed on the fewest conditions, and counts the rest", () => {
    const item = (i: number, method: 'GET' | 'POST' = 'GET') => ({ match: { method, url_prefix: `https://api.test/v1/items/${i}/` }, response: { status: 200 } })
    const many = Array.from({ length: 5000 }, (_, i) => item(i, i === 2500 ? 'POST' : 'GET'))
    const { mock } = harness({ rules: many }, 'error')
    expect(bodyOf(mock.handle(request('https://api.test/v2/x', { method: 'POST' })))).toBe(
      [
        'error: Unhandled request: POST https://api.test/v2/x (no rule matched and http.default_response is not set)',
        ...Array.from(
          { length: 9 },
          (_, i) => `  http.rules[${i}] did not match: the method is POST, not GET; the URL does not start with "https://api.test/v1/items/${i}/"`,
        ),
        '  http.rules[2500] did not match: the URL does not start with "https://api.test/v1/items/2500/"',
        '  … and 4990 more http.rules, none closer than those above',
      ].join('\n'),
    )
  })

  it("'error' with no rules says the rule list is empty", () => {
    const { mock } = harness({}, 'error')
    expect(bodyOf(mock.handle(request('http://a.test/')))).toBe(
      'error: Unhandled request: GET http://a.test/ (no rule matched and http.default_response is not set)\n  (http.rules is empty)',
    )
  })

  it("'warn' warns and fails the request as a refused connection", () => {
    const { mock, unhandledErrors, warnings, records } = harness({ rules }, 'warn')
    const answer = mock.handle(unhandledRequest)
    expect(answer).toBeInstanceOf(Error)
    expect(answer).toMatchObject({ message: 'connect ECONNREFUSED api.test:443', code: 'ECONNREFUSED', syscall: 'connect', address: 'api.test', port: 443 })
    expect(warnings).toEqual([`${message}\nAnswered as a refused connection.`])
    expect(unhandledErrors).toEqual([])
    expect(records.map((r) => [r.answeredBy, r.error, r.status])).toEqual([['unhandled', 'connect ECONNREFUSED api.test:443', undefined]])
  })

  it("'bypass' fails the request as a refused connection, silently, since tests have no network", () => {
    const { mock, unhandledErrors, warnings, records } = harness({ rules }, 'bypass')
    expect(mock.handle(request('http://localhost:8080/x'))).toMatchObject({ message: 'connect ECONNREFUSED localhost:8080', code: 'ECONNREFUSED', port: 8080 })
    expect(mock.handle(request('http://a.test/'))).toMatchObject({ message: 'connect ECONNREFUSED a.test:80', port: 80 })
    expect(warnings).toEqual([])
    expect(unhandledErrors).toEqual([])
    expect(records.map((r) => r.answeredBy)).toEqual(['refused', 'refused'])
  })
})

describe('createHttpMock records', () => {
  it('records every request with its status and what answered it', () => {
    const { mock, records } = harness({ rules: [{ match: { url_prefix: 'https://a.test/' }, response: { status: 201 }, times: 1 }], default_response: { status: 404 } })
    const headers = { 'x-k': 'v' }
    mock.handle(request('https://a.test/1', { method: 'POST', headers, body: 'one' }))
    headers['x-k'] = 'mutated later'
    mock.handle(request('https://a.test/2'))
    expect(records).toEqual([
      { method: 'POST', url: 'https://a.test/1', headers: { 'x-k': 'v' }, body: 'one', status: 201, answeredBy: 'http.rules[0]' },
      { method: 'GET', url: 'https://a.test/2', headers: {}, body: '', status: 404, answeredBy: 'http.default_response' },
    ])
  })
})
