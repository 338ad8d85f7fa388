// Turns scripted for an extension to start on its own (t.next): from `agent_end`, a command or a timer.
// Taken in order, one per turn an extension starts; what a turn nobody scripted, or one that began with
// another message, is told.
import { checkedTurn, type Turn } from './script.js'
import { stepsOf } from './steps.js'
import { asError } from '../shared/errors.js'

interface UpcomingTurn {
  turn: Turn
  /** Told the turn's number when it first asks the model. */
  started: (index: number) => void
}

export class UpcomingTurns {
  readonly #queue: UpcomingTurn[] = []

  add(turn: Turn, started: (index: number) => void): void {
    this.#queue.push({ turn: checkedTurn(turn, 'next(turn)'), started })
  }

  /** The next scripted turn, if any. */
  take(): UpcomingTurn | undefined {
    return this.#queue.shift()
  }

  /** Forgets the turns no extension started; returns their prompts. */
  dropUnstarted(): string[] {
    return this.#queue.splice(0).map(({ turn }) => turn.prompt)
  }

  /** How many agent steps the turns not started yet script. */
  get steps(): number {
    return this.#queue.reduce((sum, { turn }) => sum + stepsOf(turn.actions.filter((action) => action.kind !== 'extension')).length, 0)
  }
}

/**
 * Turns an extension starts while the test's turn is ending (its call returned, Pi still settling), held
 * until that turn has ended: their model requests are the next turn's, never more steps of the one before,
 * however late the harness sees Pi settle.
 */
export class HeldStarts {
  #ending = false
  readonly #held: (() => void)[] = []

  ending(): void {
    this.#ending = true
  }

  /** Calls `start` now, or when the ending turn has ended. */
  start(start: () => void): void {
    if (this.#ending) this.#held.push(start)
    else start()
  }

  /** The turn ended: starts what was held; a start that throws is `report`ed. */
  ended(report: (error: Error) => void): void {
    this.#ending = false
    for (const start of this.#held.splice(0)) {
      try {
        start()
      } catch (error) {
        report(asError(error))
      }
    }
  }
}

/** A turn an extension started with `first` when no turn was scripted for it. */
export function unscriptedTurn(index: number, first: string, stepNumber: number): Error {
  const message = JSON.stringify(first)
  return new Error(
    [
      `Unscripted model request: turn ${index}, which an extension started on its own with ${message}, asked the model for step ${stepNumber}, but no turn is scripted for it.`,
      `  Script it before it starts, and await it: const next = t.next(when(${message}, [says("...")])); ...; await next`,
    ].join('\n'),
  )
}

/** A scripted turn that began with another message than its prompt. */
export function unexpectedStart(prompt: string, index: number, first: string): Error {
  const expected = JSON.stringify(prompt)
  return new Error(`t.next(when(${expected})) expected the next turn an extension starts to begin with ${expected}, but turn ${index} began with ${JSON.stringify(first)}.`)
}
