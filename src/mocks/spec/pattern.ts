// The language of url_pattern and cmd_pattern: RE2 syntax (as Go's regexp and Rust's regex crate read it),
// matched by re2js in time linear in the input. A backtracking RegExp can take exponential time on a pattern
// like "(a+)+$", blocking the event loop so that no test timeout can fire.
import { createRequire } from 'node:module'
import type { RE2JS as RE2 } from 're2js'

// Loaded with the first pattern, not with the harness: only specs have patterns.
const require = createRequire(import.meta.url)

/** A compiled spec pattern: `test` finds a match anywhere in the text, as RegExp's `test` does. */
export interface SpecPattern {
  readonly source: string
  test(text: string): boolean
  /** `/source/`, as a RegExp prints it. */
  toString(): string
}

/** A pattern that does not compile. */
export class SpecPatternError extends SyntaxError {
  constructor(
    message: string,
    /** What is wrong, without the pattern, e.g. `invalid regular expression: Unterminated group`. */
    readonly problem: string,
  ) {
    super(message)
  }
}

interface Rejected {
  message: string
  problem: string
}

const RE2_LIMITS = 'patterns use RE2 syntax, which matches in linear time: no lookahead, lookbehind or backreferences'

const compiled = new Map<string, SpecPattern | Rejected>()

/** Compiles `source` without flags, once per source; throws a SpecPatternError when it is not a valid RE2 pattern. */
export function compileSpecPattern(source: string): SpecPattern {
  let pattern = compiled.get(source)
  if (pattern === undefined) compiled.set(source, (pattern = compile(source)))
  if ('problem' in pattern) throw new SpecPatternError(pattern.message, pattern.problem)
  return pattern
}

function compile(source: string): SpecPattern | Rejected {
  // Only compiled, never run: it gives the reason JavaScript users know, and the printed form.
  let regExp: RegExp | undefined
  let invalid: Rejected | undefined
  try {
    regExp = new RegExp(source)
  } catch (error) {
    // V8 says "Invalid regular expression: /<source>/: <reason>".
    const message = (error as Error).message
    invalid = { message, problem: `invalid regular expression: ${message.slice(message.lastIndexOf(': ') + 2)}` }
  }
  let re2: RE2
  try {
    re2 = (require('re2js') as typeof import('re2js')).RE2JS.compile(source)
  } catch (error) {
    if (invalid) return invalid
    const reason = `${(error as Error).message.replace(/^error parsing regexp: /, '')} (${RE2_LIMITS})`
    return { message: `Unsupported regular expression: /${source}/: ${reason}`, problem: `unsupported regular expression: ${reason}` }
  }
  const printed = regExp ? String(regExp) : `/${source}/`
  return { source, test: (text) => re2.test(text), toString: () => printed }
}
