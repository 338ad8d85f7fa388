// What the command line reports: a problem the user can act on, with where it is and the exit code.
import { jsonErrorPosition } from '../shared/json-position.js'

/** Exit codes as shells and CI read them: 0 done, 1 the work failed, 2 the command line was wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message)
  }
}

/** `file:line: problem` for a JSON file that does not parse, the line where the text stops being JSON. */
export function jsonProblem(file: string, text: string, error: unknown): CliError {
  const message = error instanceof Error ? error.message : String(error)
  const line = jsonErrorPosition(text)?.line
  return new CliError(`${line ? `${file}:${line}` : file}: not valid JSON (${message})`)
}
