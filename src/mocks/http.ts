// Answers HTTP requests from the `http` section of a mock spec; which requests get here is the interceptor's business.
import { constants } from 'node:os'
import type { InterceptedAnswer, InterceptedRequest, InterceptedResponse } from './http-interceptor.js'
import type { HttpCallRecord } from '../records/records.js'
import type { HttpMatch, HttpMock, HttpResponse, HttpRule } from './spec/types.js'
import { compilePatterns, MockRules, type PendingRule, type RuleMatcher, type UnhandledMode } from './rules.js'

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
 * - `url_exact`: equals the full URL; `url_prefix`: starts it; `url_pattern`: a JavaScript RegExp,
 *   compiled without flags, finds a match in it;
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
  const patterns = compilePatterns(mocks.rules ?? [], 'http', 'url_pattern')
  const rules = new MockRules<InterceptedRequest, HttpRule>(mocks.rules, 'http', httpMatcher(patterns))

  function answer(request: InterceptedRequest): [InterceptedAnswer, string] {
    const lookup = rules.find(request)
    if (lookup.hit) return [responseOf(lookup.hit.rule.response), lookup.hit.label]
    if (mocks.default_response) return [responseOf(mocks.default_response), 'http.default_response']
    if (options.unhandled === 'bypass') return [connectionRefused(request.url), 'refused']
    const message = [
      `Unhandled request: ${request.method} ${request.url} (no rule matched and http.default_response is not set)`,
      ...rules.explain(lookup.misses).map((line) => `  ${line}`),
    ].join('\n')
    if (options.unhandled === 'warn') {
      options.warn(`${message}\nAnswered as a refused connection.`)
      return [connectionRefused(request.url), 'unhandled']
    }
    const error = new Error(message)
    options.onUnhandled(error)
    return [error, 'unhandled']
  }

  return {
    handle(request) {
      const [reply, answeredBy] = answer(request)
      const outcome = reply instanceof Error ? { error: reply.message } : { status: reply.status }
      options.record({ method: request.method, url: request.url, headers: { ...request.headers }, body: request.body, ...outcome, answeredBy })
      return reply
    },
    pending: () => rules.pending(),
  }
}

function httpMatcher(patterns: ReadonlyMap<HttpRule, RegExp>): RuleMatcher<InterceptedRequest, HttpRule> {
  return {
    mismatches: (rule, request) => mismatches(rule.match, request, patterns.get(rule)),
    describe: (rule) => describeMatch(rule.match),
  }
}

function mismatches(match: HttpMatch, request: InterceptedRequest, pattern: RegExp | undefined): string[] {
  const reasons: string[] = []
  if (match.method !== undefined && match.method.toUpperCase() !== request.method.toUpperCase()) {
    reasons.push(`the method is ${request.method}, not ${match.method}`)
  }
  if (match.url_exact !== undefined && request.url !== match.url_exact) {
    reasons.push(`the URL is not ${JSON.stringify(match.url_exact)}`)
  }
  if (match.url_prefix !== undefined && !request.url.startsWith(match.url_prefix)) {
    reasons.push(`the URL does not start with ${JSON.stringify(match.url_prefix)}`)
  }
  if (pattern !== undefined && !pattern.test(request.url)) {
    reasons.push(`the URL does not match ${String(pattern)}`)
  }
  if (match.headers !== undefined) {
    const present = lowerCaseNames(request.headers)
    for (const [name, expected] of Object.entries(match.headers)) {
      const actual = present[name.toLowerCase()]
      if (actual === undefined) reasons.push(`header ${JSON.stringify(name)} is missing`)
      else if (actual !== expected) reasons.push(`header ${JSON.stringify(name)} is ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`)
    }
  }
  if (match.body_contains !== undefined && !request.body.includes(match.body_contains)) {
    reasons.push(`the body does not contain ${JSON.stringify(match.body_contains)}`)
  }
  return reasons
}

function describeMatch(match: HttpMatch): string {
  const parts: string[] = []
  if (match.method !== undefined) parts.push(`method ${match.method}`)
  if (match.url_exact !== undefined) parts.push(`url_exact ${JSON.stringify(match.url_exact)}`)
  if (match.url_prefix !== undefined) parts.push(`url_prefix ${JSON.stringify(match.url_prefix)}`)
  if (match.url_pattern !== undefined) parts.push(`url_pattern ${JSON.stringify(match.url_pattern)}`)
  if (match.headers !== undefined) parts.push(`headers ${JSON.stringify(match.headers)}`)
  if (match.body_contains !== undefined) parts.push(`body_contains ${JSON.stringify(match.body_contains)}`)
  return parts.join(', ')
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
