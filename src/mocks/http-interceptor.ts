// Catches every HTTP request of this process at its socket — fetch, the undici package (7 or 8), node:http and
// node:https, and every client built on them (axios, got, most SDKs) — with msw's HttpRequestInterceptor, and
// answers it from a handler instead of the network. Applied at the first connection, and loaded then unless a
// session with HTTP rules loaded it ahead: it costs more than the rest of the harness, and most tests never make
// a request.
import { createRequire } from 'node:module'
import net from 'node:net'
import { pathToFileURL } from 'node:url'
import { types } from 'node:util'
import { asError, messageOf } from '../shared/errors.js'
import { processSlot } from '../shared/global-slot.js'

// And the realm it runs in: a VM pool's test file has realms of its own, and the library tells an Error by its realm's class.
type Msw = typeof import('@mswjs/interceptors/http') &
  Pick<typeof import('@mswjs/interceptors'), 'FetchResponse'> &
  Pick<typeof import('node:http'), 'STATUS_CODES'> & { realm: Pick<typeof globalThis, 'Error' | 'Promise'> }
type Interceptor = InstanceType<Msw['HttpRequestInterceptor']>
type Connect = net.Socket['connect']

/** A caught request, as the handler sees it. */
export interface InterceptedRequest {
  /** As the caller spelled it; fetch upper-cases the standard methods. */
  method: string
  /** Origin plus path and query, e.g. `https://api.example.com/v1/items?page=2` (fetch adds `/` to a bare origin). */
  url: string
  /** As sent, with those the client adds (`host`, `connection`…); lower-cased names, repeated ones joined by `, `. */
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

interface InterceptionState {
  msw: Msw | undefined
  /** Applied from the first connection made while `handlers` is not empty, until it is empty again. */
  interceptor: Interceptor | undefined
  /** Ours on `net.Socket.prototype.connect` while handlers wait for a first connection, and what it went over. */
  trap: { connect: Connect; below: Connect } | undefined
  /** Installed handlers, oldest first: the newest answers. */
  handlers: { handle: InterceptHandler }[]
}

// One per process, on `process`: msw keeps one applied interceptor per process (a second apply joins the
// first), and every realm's copy of this module must see the same one (a VM pool's test file runs its own
// copy, while the environment that isolates the file runs outside it).
const state = processSlot<InterceptionState>('http-interception', () => ({ msw: undefined, interceptor: undefined, trap: undefined, handlers: [] }))

/**
 * Whether the interception library can load at a first connection, which is synchronous: Node loads ES
 * modules with require() since 20.19 and 22.12. Where it cannot, loadHttpInterception() must come first.
 */
export const loadsOnFirstConnection = (process.features as { require_module?: boolean }).require_module === true

/**
 * Loads the interception library ahead of the first connection, once per process. import() cannot race
 * another import of a module the library shares (Node's require() of an ES module can: it throws).
 */
export async function loadHttpInterception(): Promise<void> {
  if (state.get().msw !== undefined) return
  const { realm, require, importFrom } = processLoaders()
  // One after the other: the two entries share modules, and a VM pool's linker fails two imports of one module at once.
  const { HttpRequestInterceptor } = (await importFrom('@mswjs/interceptors/http')) as typeof import('@mswjs/interceptors/http')
  const { FetchResponse } = (await importFrom('@mswjs/interceptors')) as typeof import('@mswjs/interceptors')
  state.get().msw ??= withRealm({ HttpRequestInterceptor, FetchResponse }, realm, require)
}

/** The library, loaded now if it is not (interceptHttp has made sure this Node can). */
function loadNow(): Msw {
  const current = state.get()
  if (current.msw !== undefined) return current.msw
  const { realm, require } = processLoaders()
  try {
    const { HttpRequestInterceptor } = require('@mswjs/interceptors/http') as typeof import('@mswjs/interceptors/http')
    const { FetchResponse } = require('@mswjs/interceptors') as typeof import('@mswjs/interceptors')
    return (current.msw = withRealm({ HttpRequestInterceptor, FetchResponse }, realm, require))
  } catch (error) {
    // Node refuses it while another import of a module it shares is under way.
    throw new Error(
      `The HTTP interception could not load at this connection, so the request was not made: ${messageOf(error)}. ` +
        'A session whose mocks have an http block loads it before the session starts.',
      { cause: error },
    )
  }
}

function withRealm(msw: Pick<Msw, 'HttpRequestInterceptor' | 'FetchResponse'>, realm: typeof globalThis, require: NodeJS.Require): Msw {
  // node:http as CommonJS: its ES module view loads Node's own fetch (undici), 15-25 ms on Node 22 and later.
  const { STATUS_CODES } = require('node:http') as typeof import('node:http')
  supplyWithResolvers(realm.Promise)
  return { ...msw, STATUS_CODES, realm }
}

/**
 * Node's own loaders and the realm they load into, also from a VM pool's test file, whose `node:module` and
 * import() are the pool's. Before 20.16 (no getBuiltinModule), this module's own, and its realm.
 */
function processLoaders(): { realm: typeof globalThis; require: NodeJS.Require; importFrom: (specifier: string) => Promise<unknown> } {
  const builtin = (process as Partial<Pick<NodeJS.Process, 'getBuiltinModule'>>).getBuiltinModule
  const vm = builtin?.('node:vm')
  const require = (builtin?.('node:module') ?? { createRequire }).createRequire(import.meta.url)
  const mainLoader = vm?.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  if (vm === undefined || mainLoader === undefined) return { realm: globalThis, require, importFrom: (specifier) => import(specifier) }
  const importInProcess = vm.runInThisContext('(url) => import(url)', { importModuleDynamically: mainLoader }) as (url: string) => Promise<unknown>
  return {
    realm: vm.runInThisContext('globalThis') as typeof globalThis,
    require,
    importFrom: (specifier) => importInProcess(pathToFileURL(require.resolve(specifier)).href),
  }
}

/**
 * Answers every HTTP request from `handle` until the returned function is called: a response as the
 * server's answer, an Error as a failed connection. Installs nest; the newest installed handler answers.
 * A caught request never reaches a real socket, so the network guard beneath sees no connection; other
 * TCP traffic (not HTTP) passes on to it. The library loads (where it has not) and applies at the first
 * connection any code makes while a handler is installed; a process that makes none never loads it.
 * Where Node cannot require() an ES module, throws unless loadHttpInterception() has finished.
 */
export function interceptHttp(handle: InterceptHandler): () => void {
  const current = state.get()
  if (current.msw === undefined && !loadsOnFirstConnection) {
    throw new Error('interceptHttp: the interception library is not loaded; await loadHttpInterception() first')
  }
  const entry = { handle }
  current.handlers.push(entry)
  if (current.interceptor === undefined) setTrap(current)
  let released = false
  return () => {
    if (released) return
    released = true
    const at = current.handlers.indexOf(entry)
    if (at >= 0) current.handlers.splice(at, 1)
    if (current.handlers.length > 0) return
    current.interceptor?.dispose()
    current.interceptor = undefined
    liftTrap(current)
  }
}

/**
 * Puts the trap on top of `connect`, unless it is there: the first connection applies the interceptor and
 * goes on through it, as if it had been applied all along. A trap something else has since patched over
 * stays where it is (any trap that sees a connection first applies the interceptor; the others pass it
 * on), and a new one goes on top: the buried one may have been taken off with the patch over it.
 */
function setTrap(current: InterceptionState): void {
  const { prototype } = net.Socket
  if (current.trap !== undefined && prototype.connect === current.trap.connect) return
  const below = prototype.connect
  const trap = function connect(this: net.Socket, ...args: unknown[]) {
    if (current.interceptor === undefined && current.handlers.length > 0) {
      current.interceptor = applyInterceptor(current, loadNow())
      // The interceptor patched connect over the trap: this call goes through it too (and back here, on to below).
      if (prototype.connect !== trap) return Reflect.apply(prototype.connect, this, args) as net.Socket
    }
    return Reflect.apply(below, this, args) as net.Socket
  } as Connect
  prototype.connect = trap
  current.trap = { connect: trap, below }
}

/** Takes the trap off `connect` where it is on top; one buried under another patch stays, inert while no handler is installed. */
function liftTrap(current: InterceptionState): void {
  const trap = current.trap
  current.trap = undefined
  if (trap !== undefined && net.Socket.prototype.connect === trap.connect) net.Socket.prototype.connect = trap.below
}

function applyInterceptor(current: InterceptionState, msw: Msw): Interceptor {
  const interceptor = new msw.HttpRequestInterceptor()
  interceptor.apply()
  interceptor.on('request', async ({ request, controller }) => {
    const newest = current.handlers.at(-1)
    // Released meanwhile: left to the real connection, which the network guard refuses beyond loopback.
    if (newest === undefined) return
    const answer = await answerOf(request, newest.handle)
    // Told apart in any realm: the handler may be another realm's copy of the harness (a VM pool's test file).
    if (types.isNativeError(answer)) controller.errorWith(inRealm(answer, msw.realm.Error))
    else controller.respondWith(responseOf(msw, answer))
  })
  return interceptor
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

/** `error` as an instance of `RealmError`: msw drops, and so leaves hanging, an Error of another realm's class. */
function inRealm(error: Error, RealmError: ErrorConstructor): Error {
  if ((error as unknown) instanceof RealmError) return error
  const copy = new RealmError(error.message, error.cause === undefined ? undefined : { cause: error.cause })
  // Its own properties (code, errno, syscall, address, port), name and stack: the caller sees the error that was made.
  return Object.assign(copy, error, { name: error.name, stack: error.stack })
}

// FetchResponse, unlike Response, takes any status (1xx, 6xx) and drops the body of a 204 or 304.
function responseOf({ FetchResponse, STATUS_CODES }: Msw, answer: InterceptedResponse): Response {
  return new FetchResponse(answer.body, { status: answer.status, statusText: STATUS_CODES[answer.status] ?? '', headers: answer.headers })
}

// The library calls Promise.withResolvers (ES2024), which Node 20 lacks; everything else it uses Node 20 has.
// Supplied to the realm the library runs in, as the standard defines it, only where missing.
function supplyWithResolvers(PromiseClass: PromiseConstructor): void {
  if (typeof (PromiseClass as { withResolvers?: unknown }).withResolvers === 'function') return
  Object.defineProperty(PromiseClass, 'withResolvers', {
    value: function withResolvers<T>(this: PromiseConstructor) {
      let resolve!: (value: T | PromiseLike<T>) => void
      let reject!: (reason?: unknown) => void
      const promise = new this<T>((res, rej) => ((resolve = res), (reject = rej)))
      return { promise, resolve, reject }
    },
    writable: true,
    configurable: true,
  })
}
