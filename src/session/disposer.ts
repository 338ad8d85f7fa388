// One stack of clean-ups per session, in the spirit of TC39's AsyncDisposableStack (native from Node 24,
// absent on Node 20): whatever a step creates is registered at once, and one dispose() unwinds it all in
// reverse order, whichever step failed.
import { messageOf, throwAll } from '../shared/errors.js'

export class DisposerStack {
  readonly #disposers: (() => unknown)[] = []
  #disposed = false
  #failed = false

  get disposed(): boolean {
    return this.#disposed
  }

  /** Whether it is unwinding after a failure, or a disposer run so far has thrown. */
  get failed(): boolean {
    return this.#failed
  }

  /** Registers `disposer` to run when the stack is disposed, after everything registered later. */
  defer(disposer: () => unknown): void {
    if (this.#disposed) throw new Error('DisposerStack: defer() after dispose()')
    this.#disposers.push(disposer)
  }

  /** Runs every disposer, newest first, each even when an earlier one throws; then throws the first error. */
  async dispose(): Promise<void> {
    if (this.#disposed) return
    this.#disposed = true
    const errors: unknown[] = []
    for (const disposer of this.#disposers.splice(0).reverse()) {
      try {
        // Awaited only when it returns a promise: most clean-ups are synchronous, and an await costs a turn
        // of the microtask queue (and more under the session context's promise hook).
        const done = disposer()
        if (isPromiseLike(done)) await done
      } catch (error) {
        this.#failed = true
        errors.push(error)
      }
    }
    throwAll(errors, 'clean-ups failed')
  }

  /**
   * Unwinds after `failure` and rethrows it; a clean-up that fails too is named beside it, not lost.
   */
  async unwind(failure: unknown): Promise<never> {
    this.#failed = true
    try {
      await this.dispose()
    } catch (cleanupError) {
      throw new Error(`${messageOf(failure)}\n(and cleaning up after it failed too: ${messageOf(cleanupError)})`, { cause: failure })
    }
    throw failure
  }
}

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as PromiseLike<unknown>).then === 'function'
