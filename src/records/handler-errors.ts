// Which extension's handler threw, for errors Pi does not attribute itself: a `tool_call` handler's throw
// reaches the harness only as the reason Pi blocked the call (Pi fails closed), with no extension named.
import { asError } from '../shared/errors.js'

export interface HandlerOrigin {
  extensionPath: string
  event: string
}

const origins = new WeakMap<Error, HandlerOrigin>()

type Handler = (...args: never[]) => unknown

/**
 * `handler`, throwing an Error where it threw anything else (`throw { code: 42 }` reads `{"code":42}`,
 * not Pi's `[object Object]`), each error marked with the extension and event it came from. Each call is
 * in `running` until it returns.
 */
export function attributedHandler<H extends Handler>(handler: H, origin: HandlerOrigin, running?: Set<HandlerOrigin>): H {
  return (async (...args: never[]) => {
    const call = { ...origin }
    running?.add(call)
    try {
      return await handler(...args)
    } catch (thrown) {
      const error = asError(thrown)
      origins.set(error, origin)
      throw error
    } finally {
      running?.delete(call)
    }
  }) as unknown as H
}

/** The extension and event whose handler threw `error`, if it came from one. */
export function originOf(error: unknown): HandlerOrigin | undefined {
  return error instanceof Object ? origins.get(error as Error) : undefined
}
