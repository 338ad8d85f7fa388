// Catches every request made through node:http and node:https (axios, got, most SDKs), with msw's
// ClientRequestInterceptor, and answers it from a handler instead of the network.
import { STATUS_CODES } from 'node:http'
import { syncBuiltinESMExports } from 'node:module'
import { FetchResponse } from '@mswjs/interceptors'
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { asError } from '../shared/errors.js'
import { globalSlot } from '../shared/global-slot.js'
import type { InterceptedAnswer, InterceptedResponse, InterceptHandler } from './http-interceptor.js'

interface NodeHttpState {
  /** Applied while `handlers` is not empty. */
  interceptor: ClientRequestInterceptor | undefined
  /** Installed handlers, oldest first: the newest answers. */
  handlers: { handle: InterceptHandler }[]
}

// One per process, as msw keeps one applied interceptor per process (a second apply joins the first).
const state = globalSlot<NodeHttpState>('http-node-client', () => ({ interceptor: undefined, handlers: [] }))

/**
 * Answers every request of `http.request`/`get` and `https.request`/`get` (and `new http.ClientRequest`)
 * from `handle` until the returned function is called: a response as the server's answer, an Error as a
 * failed connection (the request emits it as 'error'). Installs nest; the newest installed handler answers.
 * Nothing reaches a socket, so the network guard beneath sees no connection.
 */
export function interceptNodeHttp(handle: InterceptHandler): () => void {
  const current = state.get()
  const entry = { handle }
  current.handlers.push(entry)
  if (current.interceptor === undefined) {
    const interceptor = new ClientRequestInterceptor()
    interceptor.apply()
    interceptor.on('request', async ({ request, controller }) => {
      const newest = state.get().handlers.at(-1)
      // Released meanwhile: left to the real connection, which the network guard refuses beyond loopback.
      if (newest === undefined) return
      const answer = await answerOf(request, newest.handle)
      if (answer instanceof Error) controller.errorWith(answer)
      else controller.respondWith(responseOf(answer))
    })
    current.interceptor = interceptor
    // `import { request } from 'node:https'` sees the patched functions only through this.
    syncBuiltinESMExports()
  }
  let released = false
  return () => {
    if (released) return
    released = true
    const at = current.handlers.indexOf(entry)
    if (at >= 0) current.handlers.splice(at, 1)
    if (current.handlers.length > 0 || current.interceptor === undefined) return
    current.interceptor.dispose()
    current.interceptor = undefined
    syncBuiltinESMExports()
  }
}

async function answerOf(request: Request, handle: InterceptHandler): Promise<InterceptedAnswer> {
  try {
    return await handle({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: request.body === null ? '' : await request.text(),
    })
  } catch (error) {
    return asError(error)
  }
}

// FetchResponse, unlike Response, takes any status (1xx, 6xx) and drops the body of a 204 or 304.
function responseOf(answer: InterceptedResponse): Response {
  return new FetchResponse(answer.body, { status: answer.status, statusText: STATUS_CODES[answer.status] ?? '', headers: answer.headers })
}
