// What t.next() returns: settled when the turn an extension started ends. A failure the test never awaits
// goes to the session's problems instead, so that a test which does not await the turn still fails.

export class AwaitedTurn implements PromiseLike<void> {
  #awaited = false
  readonly #promise: Promise<void>
  #resolve!: () => void
  #reject!: (error: unknown) => void

  /** `report` takes a failure nobody awaited; `onAwait` is told when the test first awaits the turn. */
  constructor(
    private readonly report: (error: Error) => void,
    private readonly onAwait: () => void,
  ) {
    this.#promise = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve
      this.#reject = reject
    })
    // Not an unhandled rejection when nobody awaits it: the failure is reported instead.
    this.#promise.catch(() => {})
  }

  then<A = void, B = never>(onFulfilled?: ((value: void) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    if (!this.#awaited) this.onAwait()
    this.#awaited = true
    return this.#promise.then(onFulfilled, onRejected)
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<void | B> {
    return this.then(undefined, onRejected)
  }

  resolve(): void {
    this.#resolve()
  }

  /** Rejects without reporting: whoever abandons the turn reports why. */
  abandon(error: Error): void {
    this.#reject(error)
  }

  fail(error: Error): void {
    if (!this.#awaited) this.report(error)
    this.#reject(error)
  }
}
