// One HTTP interceptor per isolated process; each session answers while it is the newest one alive.
import { globalSlot } from '../shared/global-slot.js'
import { createInterceptor, installDispatcher, type InterceptedAnswer, type InterceptedRequest, type InterceptHandler } from './http-interceptor.js'

// The sessions answering HTTP, oldest first.
const handlers = globalSlot<InterceptHandler[]>('http-handlers', () => [])

/** Makes `handler` answer HTTP until the returned function is called. */
export function answerHttp(handler: InterceptHandler): () => void {
  handlers.get().push(handler)
  return () => {
    const list = handlers.get()
    const at = list.lastIndexOf(handler)
    if (at >= 0) list.splice(at, 1)
  }
}

/** Routes a caught request to the newest session; with none alive, it fails as the network is off. */
export function routeHttp(request: InterceptedRequest): InterceptedAnswer | Promise<InterceptedAnswer> {
  const handler = handlers.get().at(-1)
  if (handler) return handler(request)
  return Object.assign(new Error(`Network access is disabled in tests: ${request.method} ${request.url} (no test session is answering HTTP)`), {
    code: 'ENETUNREACH',
  })
}

let routing: ReturnType<typeof createInterceptor> | undefined

/**
 * Catches every request made through undici or fetch and routes it to the newest session; the
 * dispatcher is built once per process (it costs more than a session) and only swapped in and out.
 */
export function interceptAllHttp(): () => void {
  routing ??= createInterceptor(routeHttp)
  return installDispatcher(routing.dispatcher)
}
