// Catches every request made through undici's global dispatcher (globalThis.fetch and the undici package,
// 7 or 8) and answers it from a handler instead of the network; node:http is http-node-client.ts's.
import { FormData as UndiciFormData, MockAgent, Response as UndiciResponse, setGlobalDispatcher, type Dispatcher } from 'undici'
import { asError } from '../shared/errors.js'
import { interceptNodeHttp } from './http-node-client.js'

/** A caught request, as the handler sees it. */
export interface InterceptedRequest {
  /** As the caller spelled it; fetch upper-cases the standard methods. */
  method: string
  /** Origin plus path and query, e.g. `https://api.example.com/v1/items?page=2` (fetch adds `/` to a bare origin). */
  url: string
  /** Lower-cased names; repeated headers joined by `, `. */
  headers: Record<string, string>
  /** The request body read as UTF-8 text; '' when there is none. */
  body: string
}

export interface InterceptedResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * An Error answers as a failed connection: fetch rejects with TypeError('fetch failed', { cause: error }),
 * undici's request with the error, and a node:http request emits it as 'error'.
 */
export type InterceptedAnswer = InterceptedResponse | Error

export type InterceptHandler = (request: InterceptedRequest) => InterceptedAnswer | Promise<InterceptedAnswer>

// Both generations of undici look the global dispatcher up under these: Node 20's bundled fetch reads `.1`.
const GLOBAL_DISPATCHER_KEYS = [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')]

// Carries the prepared answer from the async step to MockAgent's synchronous reply callback.
const kAnswer = Symbol('interceptedAnswer')

/**
 * Answers every HTTP request from `handle`: fetch and undici through undici's MockAgent as the global
 * dispatcher (one persisted catch-all interceptor, net connect disabled), node:http and node:https through
 * msw's interceptor. Returns the function that puts both back; install and restore in last-in-first-out order.
 */
export function interceptHttp(handle: InterceptHandler): () => void {
  const { dispatcher, agent } = createInterceptor(handle)
  const restoreDispatcher = installDispatcher(dispatcher)
  const restoreNodeHttp = interceptNodeHttp(handle)
  return () => {
    restoreNodeHttp()
    restoreDispatcher()
    void agent.close()
  }
}

/** A dispatcher answering every request from `handle` (MockAgent, net connect disabled), not installed. */
export function createInterceptor(handle: InterceptHandler): { dispatcher: Dispatcher; agent: MockAgent } {
  const agent = new MockAgent()
  agent.disableNetConnect()
  agent
    .get(() => true)
    .intercept({ path: () => true, method: () => true })
    .reply((request) => {
      const answer = (request as { [kAnswer]?: InterceptedAnswer })[kAnswer]
      if (answer === undefined) throw new Error('http-interceptor: a request reached the mock without an answer')
      // MockAgent hands a throw from here to the request's handler as its error, i.e. a failed connection.
      if (answer instanceof Error) throw answer
      return { statusCode: answer.status, data: answer.body, responseOptions: { headers: answer.headers } }
    })
    .persist()

  // MockAgent's reply callback is synchronous, so reading the body and awaiting `handle` happen in front of it.
  const dispatcher = agent.compose((dispatch) => (options, handler) => {
    void prepare(options, handle)
      .then(({ body, answer }) => dispatch({ ...options, body, [kAnswer]: answer } as Dispatcher.DispatchOptions, handler))
      // A throw before MockAgent's own error handling would otherwise leave the request hanging.
      .catch((error: unknown) => handler.onError?.(asError(error)))
    return true
  })
  return { dispatcher, agent }
}

/** Makes `dispatcher` the global one; the returned function puts the previous one back, once. */
export function installDispatcher(dispatcher: Dispatcher): () => void {
  const globals = globalThis as unknown as Record<symbol, unknown>
  const previous = GLOBAL_DISPATCHER_KEYS.map((key) => globals[key])
  setGlobalDispatcher(dispatcher)
  let restored = false
  return () => {
    if (restored) return
    restored = true
    // Assigned back as they were (setGlobalDispatcher would write one value to both keys and rejects undefined).
    GLOBAL_DISPATCHER_KEYS.forEach((key, index) => (globals[key] = previous[index]))
  }
}

async function prepare(options: Dispatcher.DispatchOptions, handle: InterceptHandler): Promise<{ body: string; answer: InterceptedAnswer }> {
  let body = ''
  try {
    body = await readBody(options.body)
    const request: InterceptedRequest = {
      method: String(options.method),
      url: urlOf(options),
      headers: headersOf(options.headers),
      body,
    }
    return { body, answer: await handle(request) }
  } catch (error) {
    return { body, answer: asError(error) }
  }
}

function urlOf(options: Dispatcher.DispatchOptions): string {
  const origin = options.origin === undefined ? '' : new URL(String(options.origin)).origin
  return `${origin}${options.path}`
}

function headersOf(raw: unknown): Record<string, string> {
  const headers: Record<string, string> = {}
  const add = (name: unknown, value: unknown) => {
    if (value === undefined || value === null) return
    const key = String(name).toLowerCase()
    const text = Array.isArray(value) ? value.map(String).join(', ') : String(value)
    headers[key] = key in headers ? `${headers[key]}, ${text}` : text
  }
  if (raw === undefined || raw === null) return headers
  if (Array.isArray(raw)) {
    // undici's raw form is a flat [name, value, name, value, …]; a list of pairs is accepted too.
    if (raw.every((item) => Array.isArray(item))) for (const [name, value] of raw) add(name, value)
    else for (let i = 0; i + 1 < raw.length; i += 2) add(raw[i], raw[i + 1])
  } else if (typeof (raw as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [name, value] of raw as Iterable<[unknown, unknown]>) add(name, value)
  } else if (typeof raw === 'object') {
    for (const [name, value] of Object.entries(raw)) add(name, value)
  }
  return headers
}

const decoder = new TextDecoder()

async function readBody(body: unknown): Promise<string> {
  if (body === undefined || body === null) return ''
  if (typeof body === 'string') return body
  if (ArrayBuffer.isView(body)) return decoder.decode(bytesOf(body))
  if (body instanceof ArrayBuffer) return decoder.decode(body)
  if (body instanceof Blob) return body.text()
  if (body instanceof URLSearchParams) return body.toString()
  // Multipart text, encoded by the fetch the FormData belongs to; its boundary need not be the one sent in content-type.
  if (body instanceof FormData) return new Response(body).text()
  if (body instanceof UndiciFormData) return new UndiciResponse(body).text()
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    const chunks: Uint8Array[] = []
    for await (const chunk of body as AsyncIterable<unknown>) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : ArrayBuffer.isView(chunk) ? bytesOf(chunk) : Buffer.from(String(chunk)))
    }
    return decoder.decode(Buffer.concat(chunks))
  }
  return String(body)
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength)
}
