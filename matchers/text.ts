// How texts and values are matched and printed, the same way in every matcher.
import { expect, type MatcherState } from 'vitest'

/** A string matches as a substring, a RegExp by test(), anything else (asymmetric matchers too) by equality. */
export type TextMatcher = string | RegExp

export function matchesText(state: MatcherState, actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'string') return typeof actual === 'string' && actual.includes(expected)
  if (expected instanceof RegExp) return typeof actual === 'string' && expected.test(actual)
  return state.equals(actual, expected)
}

/** Objects match like expect.objectContaining (keys not listed are ignored); other values by equality. */
export function matchesValue(state: MatcherState, actual: unknown, expected: unknown): boolean {
  if (isPlainObject(expected)) return state.equals(actual, expect.objectContaining(expected))
  return state.equals(actual, expected)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

export function printText(expected: unknown): string {
  return expected instanceof RegExp ? String(expected) : JSON.stringify(expected)
}

/** One line per item, numbered, capped so a long session does not bury the message. */
export function numbered(lines: string[], max = 20): string {
  const shown = lines.slice(0, max).map((line, i) => `  ${i + 1}. ${line}`)
  if (lines.length > max) shown.push(`  … and ${lines.length - max} more`)
  return shown.join('\n')
}

export function callLine(toolName: string, input: unknown, note = ''): string {
  return `${toolName}(${compact(input)})${note}`
}

export function compact(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 200 ? `${text.slice(0, 197)}...` : text
}
