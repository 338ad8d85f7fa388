// How a thrown value reads in a message: extensions and mocks throw anything, not only Errors.
import { inspect, types } from 'node:util'

/** The message of an Error; any other thrown value as it would be written (`undefined`, `{"code":42}`, `"text"`). */
export function messageOf(thrown: unknown): string {
  // isNativeError: an Error from another realm (Vitest's VM pools) is an Error too.
  if (thrown instanceof Error || types.isNativeError(thrown)) return thrown.message
  if (typeof thrown === 'string') return thrown
  return describeValue(thrown)
}

/** A value in one line for an error message: JSON where it can be, Node's inspection where JSON cannot (cycles, BigInt, functions). */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'function') return value.name ? `function ${value.name}` : 'a function'
  if (typeof value === 'bigint') return `${value}n`
  // JSON writes NaN and Infinity as null.
  if (typeof value === 'number') return String(value)
  try {
    const json = JSON.stringify(value)
    if (json !== undefined) return json
  } catch {
    // Cyclic: Node's inspection marks the cycle instead of throwing.
  }
  return inspect(value, { depth: 4, breakLength: Infinity })
}

/** What a wrong value was, for "got …": `"bash" (a string)`, `5 (a number)`, `null`, `function says`; long values cut. */
export function describeReceived(value: unknown): string {
  const written = describeValue(value)
  const shown = written.length > 80 ? `${written.slice(0, 77)}...` : written
  if (value === null || value === undefined || typeof value === 'function') return shown
  const kind = Array.isArray(value) ? 'array' : typeof value
  return `${shown} (${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind})`
}

/** Throws the one error as it is, or all of them as one AggregateError whose message names each; nothing when none. */
export function throwAll(errors: readonly unknown[], failed: string): void {
  if (errors.length === 1) throw errors[0]
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} ${failed}: ${errors.map(messageOf).join('; ')}`)
}

/** `thrown` as an Error, keeping an Error as it is. */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error || types.isNativeError(thrown) ? thrown : new Error(messageOf(thrown), { cause: thrown })
}

/** The name in `known` a typo of `name` most likely meant (edit distance, ignoring case), if any is close enough. */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let closest: string | undefined
  // A third of the name, at least 2: `mockTool` finds `mockTools`, `cwd` does not find `root`.
  let bound = Math.max(2, Math.floor(name.length / 3))
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase())
    if (distance <= bound) {
      closest = candidate
      bound = distance - 1
    }
  }
  return closest
}

/** Levenshtein distance: the fewest insertions, deletions and substitutions that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

/** ` (at file:line:col)`: the first frame of the error's stack, which names the extension's file. */
export function thrownAt(error: unknown): string {
  const frame = error instanceof Error ? error.stack?.split('\n').find((line) => line.trimStart().startsWith('at ')) : undefined
  return frame ? ` (${frame.trim()})` : ''
}
