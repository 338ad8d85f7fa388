// How texts and values are matched and printed, the same way in every matcher.
import { expect, type MatcherState } from 'vitest'
import type { UICallRecord } from '../src/records/records.js'
import { uiCallLine } from '../src/records/timeline.js'

/** A string matches as a substring, a RegExp by test(), anything else (asymmetric matchers too) by equality. */
export type TextMatcher = string | RegExp

/** Equality as the rest of `expect` sees it: with the testers added by expect.addEqualityTesters. */
export function equals(state: MatcherState, actual: unknown, expected: unknown): boolean {
  return state.equals(actual, expected, state.customTesters)
}

export function matchesText(state: MatcherState, actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'string') return typeof actual === 'string' && actual.includes(expected)
  if (expected instanceof RegExp) return typeof actual === 'string' && expected.test(actual)
  return equals(state, actual, expected)
}

/** Objects match like expect.objectContaining (keys not listed are ignored); other values by equality. */
export function matchesValue(state: MatcherState, actual: unknown, expected: unknown): boolean {
  return equals(state, actual, isPlainObject(expected) ? expect.objectContaining(expected) : expected)
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** A value on one line as Vitest prints it (asymmetric matchers by name, [Circular], 12n), cut to 200 characters. */
export function oneLine(state: MatcherState, value: unknown): string {
  let text: string
  try {
    text = state.utils.stringify(value, 10, { min: true })
  } catch {
    // A throwing getter must not turn a failure message into a crash.
    text = '[unprintable value]'
  }
  // Vitest keeps a string's line breaks; a listed item stays on its line.
  text = text.replace(/\r?\n/g, '\\n')
  return text.length > 200 ? `${text.slice(0, 197)}...` : text
}

/** What the test asked for, in Vitest's expected colour. */
export const printExpectedLine = (state: MatcherState, value: unknown) => state.utils.EXPECTED_COLOR(oneLine(state, value))

/** What the records hold, in Vitest's received colour. */
export const printReceivedLine = (state: MatcherState, value: unknown) => state.utils.RECEIVED_COLOR(oneLine(state, value))

/** One line per item, numbered, capped so a long session does not bury the message. */
export function numbered(lines: string[], max = 20): string {
  const shown = lines.slice(0, max).map((line, i) => `  ${i + 1}. ${line}`)
  if (lines.length > max) shown.push(`  … and ${lines.length - max} more`)
  return shown.join('\n')
}

export function callLine(state: MatcherState, toolName: string, input: unknown, note = ''): string {
  return `${toolName}(${printReceivedLine(state, input)})${note}`
}

/** `.map(describeUI(this))`: a UI call as one line, with a dialog's answer. */
export const describeUI = (state: MatcherState) => (call: UICallRecord) => uiCallLine(call, (value) => printReceivedLine(state, value))
