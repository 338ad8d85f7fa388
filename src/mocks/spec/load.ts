import { readFileSync } from 'node:fs'
import { messageOf } from '../../shared/errors.js'
import { jsonErrorPosition } from '../../shared/json-position.js'
import type { MockSpec } from './types.js'
import { MockSpecError, validateMockSpec, type ValidateMockSpecOptions } from './validate.js'

export type LoadMockSpecOptions = Omit<ValidateMockSpecOptions, 'source'>

/** Reads and validates a spec file; any failure is one MockSpecError whose lines start with `path` exactly as given. */
export function loadMockSpec(path: string, options: LoadMockSpecOptions = {}): MockSpec {
  return validateMockSpec(readJsonFile(path), { ...options, source: path })
}

/** Reads a JSON file, throwing a MockSpecError with source `path` when it is missing or not JSON. */
export function readJsonFile(path: string): unknown {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const message = code === 'ENOENT' ? 'file not found' : `cannot read file: ${(error as Error).message}`
    throw new MockSpecError(path, [{ pointer: '', message }])
  }
  try {
    // Editors on Windows may save a BOM, which JSON.parse rejects.
    return JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new MockSpecError(path, [{ pointer: '', message: `invalid JSON: ${jsonReason(error, text)}` }])
  }
}

// V8 reports a character offset at best (none for an unexpected token), useless in a long file: line and column are added.
function jsonReason(error: unknown, text: string): string {
  const message = messageOf(error)
  const position = jsonErrorPosition(text.replace(/^\uFEFF/, ''))
  if (position === undefined || /\(line \d+ column \d+\)/.test(message)) return message
  return `${message} (line ${position.line} column ${position.column})`
}
