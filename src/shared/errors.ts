// How a thrown value reads in a message: extensions and mocks throw anything, not only Errors.
import { inspect } from 'node:util'

/** The message of an Error; any other thrown value as it would be written (`undefined`, `{"code":42}`, `"text"`). */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message
  if (typeof thrown === 'string') return thrown
  return describeValue(thrown)
}

/** A value in one line for an error message: JSON where it can be, Node's inspection where JSON cannot (cycles, BigInt, functions). */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'function') return value.name ? `function ${value.name}` : 'a function'
  if (typeof value === 'bigint') return `${value}n`
  try {
    const json = JSON.stringify(value)
    if (json !== undefined) return json
  } catch {
    // Cyclic: Node's inspection marks the cycle instead of throwing.
  }
  return inspect(value, { depth: 4, breakLength: Infinity })
}

/** `thrown` as an Error, keeping an Error as it is. */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(messageOf(thrown), { cause: thrown })
}
