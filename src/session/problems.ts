// What went wrong beside the main path (an unhandled call, a tool that threw, a handler's crash, a
// scripting mistake in a dialog): collected as it happens, thrown at the next run(), emit() or verify().
export class Problems {
  readonly #found: Error[] = []

  report(error: Error): void {
    this.#found.push(error)
  }

  /** Throws what was reported since the last call: one problem as it is, several in one Error. */
  throwIfAny(): void {
    const found = this.#found.splice(0)
    if (found.length === 1) throw found[0]
    if (found.length > 1) throw new Error(found.map((e) => e.message).join('\n\n'), { cause: found })
  }
}
