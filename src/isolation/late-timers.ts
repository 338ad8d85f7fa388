// A timer a session's code started that fires after the session ended is reported as the session's late
// work (src/session/late-work.ts) instead of throwing into the process, where Vitest would blame whichever
// test runs then. Timers carry the session context, so the callback knows whose it is.
import { currentSession, runAsInstance, startedByInstance, type SessionScope } from '../shared/session-context.js'

type TimerFunction = (callback: (...args: any[]) => unknown, ...rest: any[]) => unknown

const GUARDED = Symbol.for('vitest-environment-pi:late-timers')

/**
 * Wraps the timer functions of this realm, once and for good (as os.homedir is replaced), so that a
 * callback of a session that fires after the session ended is reported instead of throwing into the
 * process. Once: a session may end after everything that held the isolation has left it.
 */
export function guardLateTimers(): void {
  const target = globalThis as unknown as Record<string, TimerFunction & { [GUARDED]?: true }>
  for (const name of ['setTimeout', 'setInterval', 'setImmediate']) {
    const original = target[name]!
    if (original[GUARDED]) continue
    const wrapper = function (this: unknown, callback: (...args: any[]) => unknown, ...rest: any[]) {
      const scope = currentSession()
      if (scope === undefined || typeof callback !== 'function') return original.call(this, callback, ...rest)
      return original.call(this, lateGuarded(scope, callback), ...rest)
    }
    // Keeps what Node hangs on the originals (util.promisify.custom).
    for (const key of Reflect.ownKeys(original)) {
      if (key !== 'length' && key !== 'name' && key !== 'prototype') Reflect.defineProperty(wrapper, key, Reflect.getOwnPropertyDescriptor(original, key)!)
    }
    target[name] = Object.assign(wrapper, { [GUARDED]: true as const })
  }
}

function lateGuarded(scope: SessionScope, callback: (...args: any[]) => unknown) {
  // The instance that started the timer (a timer's timer stays its first's): once /new, /resume, /fork or
  // /reload replaced it, its throw is reported, and so are the model calls and dialogs its callback makes.
  const bornIn = startedByInstance() ?? scope.instanceNow?.()
  return function (this: unknown, ...args: unknown[]) {
    const report = (error: unknown) => {
      if (scope.ended === undefined) {
        if (bornIn === undefined || scope.replaced === undefined || scope.instanceNow?.() === bornIn) throw error
        scope.replaced('A timer', bornIn, error)
      } else scope.ended('A timer', error)
      // An interval would fail again at each tick: it stops (`this` is Node's Timeout).
      ;(this as { close?: () => void } | undefined)?.close?.()
    }
    let result: unknown
    try {
      result = bornIn === undefined ? callback.apply(this, args) : runAsInstance(bornIn, () => callback.apply(this, args))
    } catch (error) {
      return report(error)
    }
    // An async callback's rejection after the session ended is reported too; before, it stays unhandled.
    if (result instanceof Promise) result.then(undefined, report)
    return result
  }
}
