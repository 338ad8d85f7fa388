// What went wrong beside the main path (an unhandled call, a tool that threw, a handler's crash, a
// scripting mistake in a dialog): collected as it happens, thrown at the next run(), emit() or verify().
import type { ExtensionErrorRecord } from '../records/records.js'

export class Problems {
  readonly #found: Error[] = []

  report(error: Error): void {
    this.#found.push(error)
  }

  /** Takes `error` back if it was reported and not thrown yet; says whether it was. */
  withdraw(error: Error): boolean {
    const at = this.#found.indexOf(error)
    if (at >= 0) this.#found.splice(at, 1)
    return at >= 0
  }

  /** Throws what was reported since the last call: one problem as it is, several as one numbered list. */
  throwIfAny(): void {
    const found = this.#found.splice(0)
    if (found.length === 1) throw found[0]
    if (found.length > 1) throw new SeveralProblems(found)
  }
}

/** Several problems as one error whose message lists them, each once (no `cause` for a reporter to print again). */
export class SeveralProblems extends Error {
  declare readonly problems: readonly Error[]

  constructor(problems: readonly Error[]) {
    // Each message as it is (a test may look for one in it), a blank line between them.
    super(`${problems.length} problems:\n\n${problems.map((problem, index) => `${index + 1}. ${problem.message}`).join('\n\n')}`)
    Object.defineProperty(this, 'problems', { value: problems, enumerable: false })
  }
}

/** With propagateErrors (the default), a handler's crash fails the test, even where Pi fails safe. */
export function handlerThrew(error: ExtensionErrorRecord): Error {
  return new Error(`Extension ${error.extensionPath} threw in its "${error.event}" handler: ${error.error}`)
}
