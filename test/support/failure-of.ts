// The message an assertion fails with, without colours: what a matcher's user reads.
import { stripVTControlCharacters } from 'node:util'
import { expect } from 'vitest'

export function failureOf(assertion: () => void): string {
  try {
    assertion()
  } catch (error) {
    return stripVTControlCharacters((error as Error).message)
  }
  return expect.unreachable('the assertion passed')
}
