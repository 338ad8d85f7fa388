// Pi reports a handler's throw by its `message`, and anything else by `String()`: `throw { code: 42 }`
// would read `[object Object]`. Each line's loader wraps the factories it is given with this.
import { asError } from '../../shared/errors.js'

type Handler = (...args: never[]) => unknown
interface Registration {
  on(event: string, handler: Handler): unknown
}

/** `factory`, whose event handlers throw an Error (with `{"code":42}` as its message) where they threw anything else. */
export function handlersThrowErrors<Api extends object, Result>(factory: (api: Api) => Result): (api: Api) => Result {
  return (api) => {
    const { on } = api as unknown as Registration
    // Pi's own registration keeps working (the unsubscribe it returns, late registrations, reload).
    const register = (event: string, handler: Handler) =>
      on.call(api, event, async (...args: never[]) => {
        try {
          return await handler(...args)
        } catch (error) {
          throw asError(error)
        }
      })
    return factory({ ...api, on: register })
  }
}
