// Answers HTTP requests from the `http` section of a mock spec; which requests get here is the interceptor's business.
import { constants } from 'node:os'
import type { InterceptedAnswer, InterceptedRequest, InterceptedResponse } from './http-interceptor.js'
import type { HttpCallRecord } from '../records/records.js'
import type { HttpMatch, HttpMock, HttpResponse, HttpRule } from './spec/types.js'
import { compilePatterns, matchTable, MockRules, patternOf, UnhandledCallError, type Answered, type Fallbacks, type PendingRule, type UnhandledMode, type UnhandledPolicy } from './rules.js'

export interface HttpMockOptions {
  /** 'bypass' lets the request through to the network, which tests do not have: it fails as a refused connection. */
  unhandled: UnhandledMode
  /** Told about every request no mock answers when `unhandled` is 'error'. */
  onUnhandled(error: Error): void
  record(call: HttpCallRecord): void
  warn(message: string): void
}

export interface HttpMockHandle {
  /** A response, or an Error to fail the request with as a connection failure. */
  handle(request: InterceptedRequest): InterceptedAnswer
  /** Rules with `times` > 0 that have not answered that often yet. */
  pending(): PendingRule[]
}

/**
 * Answers requests from the rules of `mocks`, first match wins. A rule matches when every key its
 * `match` gives holds:
 * - `method`: equals the request's method, ignoring case (omitted: any method);
 * - `url_exact`: equals the full URL; `url_prefix`: starts it; `url_pattern`: a pattern in RE2 syntax
 *   (linear-time: no lookaround or backreferences), compiled without flags, finds a match in it;
 * - `headers`: each listed header is present (names ignore case) with exactly the listed value;
 * - `body_contains`: the request body, as text, contains it.
 *
 * A rule with `times` > 0 answers at most that often. When no rule answers, `default_response` does;
 * without one, `unhandled` decides: 'error' fails the request with an Error listing each rule and why
 * it did not answer (also passed to `onUnhandled`), 'warn' warns and fails it as a refused connection,
 * 'bypass' fails it as a refused connection without a word, since the network is never reached.
 *
 * A response's `body_json` is serialized and gets `content-type: application/json` unless its headers
 * set a content type.
 */
export function createHttpMock(mocks: HttpMock, options: HttpMockOptions): HttpMockHandle {
  compilePatterns(mocks.rules ?? [], 'http', 'url_pattern')
  const rules = new MockRules<InterceptedRequest, HttpRule>(mocks.rules, 'http', httpMatcher)
  const policy: UnhandledPolicy = { mode: options.unhandled, onUnhandled: options.onUnhandled, warn: options.warn }
  const fallbacks = (request: InterceptedRequest): Fallbacks<InterceptedAnswer> => ({
    call: `request: ${request.method} ${request.url}`,
    default: { label: 'http.default_response', answer: mocks.default_response && (() => responseOf(mocks.default_response!)) },
    bypass: { label: 'refused', answer: () => connectionRefused(request.url) },
    warned: { note: 'Answered as a refused connection.', answer: () => connectionRefused(request.url) },
  })

  function answer(request: InterceptedRequest): Answered<InterceptedAnswer> {
    try {
      return rules.answer(request, (rule) => responseOf(rule.response), fallbacks(request), policy)
    } catch (error) {
      // The caller sees the unhandled request fail as a connection would.
      if (error instanceof UnhandledCallError) return { answer: error, answeredBy: 'unhandled' }
      throw error
    }
  }

  return {
    handle(request) {
      const { answer: reply, answeredBy } = answer(request)
      const outcome = reply instanceof Error ? { error: reply.message } : { status: reply.status }
      options.record({ method: request.method, url: request.url, headers: { ...request.headers }, body: request.body, ...outcome, answeredBy })
      return reply
    },
    pending: () => rules.pending(),
  }
}

const httpMatcher = matchTable<InterceptedRequest, HttpMatch>({
  method: {
    holds: (request, method) => method.toUpperCase() === request.method.toUpperCase(),
    reason: (request, method) => `the method is ${request.method}, not ${method}`,
    describe: (method) => `method ${method}`,
  },
  url_exact: {
    holds: (request, url) => request.url === url,
    reason: (_request, url) => `the URL is not ${JSON.stringify(url)}`,
  },
  url_prefix: {
    holds: (request, prefix) => request.url.startsWith(prefix),
    reason: (_request, prefix) => `the URL does not start with ${JSON.stringify(prefix)}`,
  },
  url_pattern: {
    holds: (request, source) => patternOf(source).test(request.url),
    reason: (_request, source) => `the URL does not match ${String(patternOf(source))}`,
  },
  headers: {
    holds: (request, headers) => headerMismatches(request, headers).length === 0,
    reason: (request, headers) => headerMismatches(request, headers).join('; '),
  },
  body_contains: {
    holds: (request, text) => request.body.includes(text),
    reason: (_request, text) => `the body does not contain ${JSON.stringify(text)}`,
  },
})

function headerMismatches(request: InterceptedRequest, expected: Record<string, string>): string[] {
  const present = lowerCaseNames(request.headers)
  return Object.entries(expected).flatMap(([name, value]) => {
    const actual = present[name.toLowerCase()]
    if (actual === undefined) return [`header ${JSON.stringify(name)} is missing`]
    return actual === value ? [] : [`header ${JSON.stringify(name)} is ${JSON.stringify(actual)}, not ${JSON.stringify(value)}`]
  })
}

function responseOf(response: HttpResponse): InterceptedResponse {
  const headers = { ...response.headers }
  if (response.body_json === undefined) return { status: response.status, headers, body: response.body ?? '' }
  const typed = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')
  return {
    status: response.status,
    headers: typed ? headers : { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(response.body_json),
  }
}

function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))
}

// Shaped like the error Node gives a refused TCP connection, so callers see the failure they would handle in production.
function connectionRefused(url: string): Error {
  const { hostname, port, protocol } = new URL(url)
  const portNumber = port !== '' ? Number(port) : protocol === 'https:' ? 443 : 80
  return Object.assign(new Error(`connect ECONNREFUSED ${hostname}:${portNumber}`), {
    code: 'ECONNREFUSED',
    errno: -constants.errno.ECONNREFUSED,
    syscall: 'connect',
    address: hostname,
    port: portNumber,
  })
}
