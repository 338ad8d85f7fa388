// What the command line reports: a problem the user can act on, with where it is and the exit code.

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

/** `file:line: problem` for a JSON file that does not parse, the line taken from the parser's position. */
export function jsonProblem(file: string, text: string, error: unknown): CliError {
  const message = error instanceof Error ? error.message : String(error)
  const position = /position (\d+)/.exec(message)
  const line = /line (\d+)/.exec(message)?.[1] ?? (position ? String(text.slice(0, Number(position[1])).split('\n').length) : undefined)
  return new CliError(`${line ? `${file}:${line}` : file}: not valid JSON (${message})`)
}
