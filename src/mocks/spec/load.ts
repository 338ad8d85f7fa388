import { readFileSync } from 'node:fs'
import { messageOf } from '../../shared/errors.js'
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

// Node 20 only reports a character offset, which is useless in a long file, so line and column are added.
function jsonReason(error: unknown, text: string): string {
  const message = messageOf(error)
  const offset = /at position (\d+)/.exec(message)?.[1]
  if (offset === undefined || /\(line \d+ column \d+\)/.test(message)) return message
  const before = text.replace(/^\uFEFF/, '').slice(0, Number(offset))
  const line = before.split('\n').length
  const column = before.length - before.lastIndexOf('\n')
  return `${message} (line ${line} column ${column})`
}
