// One HTTP interceptor per isolated process; each request is answered by the session whose code made it.
import { currentSession, type SessionScope } from '../shared/session-context.js'
import { processSlot } from '../shared/global-slot.js'
import { interceptHttp, type InterceptedAnswer, type InterceptedRequest, type InterceptHandler } from './http-interceptor.js'

// The sessions answering HTTP, by the session context their requests carry: on `process`, as the interception
// and the session contexts are, so that a VM pool's test file and the environment outside it route alike.
const handlers = processSlot('http-handlers', () => new Map<SessionScope, InterceptHandler>())

/** Makes `handler` answer the HTTP requests of `scope`'s session until the returned function is called. */
export function answerHttp(scope: SessionScope, handler: InterceptHandler): () => void {
  handlers.get().set(scope, handler)
  return () => {
    if (handlers.get().get(scope) === handler) handlers.get().delete(scope)
  }
}

/**
 * Routes a caught request to the session whose code made it (its run(), command(), emit() or start, and
 * what those started). A request made outside every session goes to the one session alive; with none
 * alive it fails as the network is off, and with two or more it fails: whose rules apply cannot be known.
 */
export function routeHttp(request: InterceptedRequest): InterceptedAnswer | Promise<InterceptedAnswer> {
  const alive = handlers.get()
  const what = `${request.method} ${request.url}`
  const scope = currentSession()
  if (scope !== undefined) return alive.get(scope)?.(request) ?? unreachable(`Network access is disabled in tests: ${what} (its test session has ended)`)
  if (alive.size === 1) return alive.values().next().value!(request)
  if (alive.size === 0) return unreachable(`Network access is disabled in tests: ${what} (no test session is answering HTTP)`)
  return unreachable(
    `${what} was made outside any test session while ${alive.size} sessions are alive; whose HTTP rules answer it cannot be known. ` +
      "Make the request from the extension's code (run(), command(), emit(), or what they start), or keep one session alive while making it.",
  )
}

function unreachable(message: string): Error {
  return Object.assign(new Error(message), { code: 'ENETUNREACH' })
}

/** Catches every HTTP request (fetch, undici, node:http, node:https) and routes it to its session. */
export function interceptAllHttp(): () => void {
  return interceptHttp(routeHttp)
}
