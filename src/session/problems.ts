// What went wrong beside the main path (an unhandled call, a tool that threw, a handler's crash, a
// scripting mistake in a dialog): collected as it happens, thrown at the next run(), emit() or verify().
import type { ExtensionErrorRecord } from '../records/records.js'

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

/** With propagateErrors (the default), a handler's crash fails the test, even where Pi fails safe. */
export function handlerThrew(error: ExtensionErrorRecord): Error {
  return new Error(`Extension ${error.extensionPath} threw in its "${error.event}" handler: ${error.error}`)
}
