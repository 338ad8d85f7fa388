// Snapshots of records and events that stay the same across runs and machines: in what the harness
// recorded, ids become <ID> and timestamps <TIME>; the session's temp dirs become <CWD> and <HOME>
// wherever they appear. The user's own objects and strings print as in plain Vitest.
import { tmpdir } from 'node:os'
import type { SnapshotSerializer } from 'vitest'
import { isHarnessMade } from '../src/records/harness-made.js'
import { escapeRegExp } from './escape-regexp.js'

const TEMP = escapeRegExp(tmpdir())
// A session's dirs and the file's home that code outside sessions sees, all in the process's own temp dir.
const OWN = `${TEMP}/pi-harness-[A-Za-z0-9]+`
const PATHS: [RegExp, string][] = [
  [new RegExp(`${OWN}/session-cwd-[A-Za-z0-9]+`, 'g'), '<CWD>'],
  [new RegExp(`${OWN}/session-home-[A-Za-z0-9]+`, 'g'), '<HOME>'],
  [new RegExp(`${OWN}/file-home-[A-Za-z0-9]+`, 'g'), '<HOME>'],
]
const ID_KEYS = new Set(['id', 'toolCallId', 'parentId', 'sessionId', 'responseId', 'entryId'])
const TIME_KEYS = new Set(['timestamp', 'durationMs', 'startedAt', 'endedAt'])
// Where a record holds what the test, the script or an extension passed in: printed as given.
const USER_KEYS = new Set(['input', 'args', 'arguments', 'details', 'data', 'returnValue', 'options'])

function normalisePaths(text: string): string {
  let out = text
  for (const [pattern, replacement] of PATHS) out = out.replace(pattern, replacement)
  return out
}

const isPlain = (value: object): boolean => [Object.prototype, null].includes(Object.getPrototypeOf(value))

// What the harness made holds more of its own making (a message's content, an event's message), except under
// USER_KEYS; adopted for the snapshot being printed only, so that the objects themselves stay unmarked.
let adopted = new WeakSet<object>()
let printing = 0
function adopt(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) adopted.add(value)
  return value
}

const isRecorded = (value: object): boolean => (isHarnessMade(value) || adopted.has(value)) && (Array.isArray(value) || isPlain(value))

export const piSerializer: SnapshotSerializer = {
  test: (value) => (typeof value === 'string' ? normalisePaths(value) !== value : typeof value === 'object' && value !== null && isRecorded(value)),
  serialize(value, config, indentation, depth, refs, printer) {
    if (typeof value === 'string') return printer(normalisePaths(value), config, indentation, depth, refs)
    // pretty-format asks plugins before its own cycle check; with the original on the path it finds cycles back to it.
    if (refs.includes(value)) return '[Circular]'
    printing++
    try {
      // The copy is not marked, so pretty-format prints it as it would the original.
      return printer(normalisedCopy(value as object), config, indentation, depth, [...refs, value])
    } finally {
      if (--printing === 0) adopted = new WeakSet()
    }
  },
}

function normalisedCopy(value: object): object {
  if (Array.isArray(value)) return value.map(adopt)
  const copy = Object.create(Object.getPrototypeOf(value)) as Record<string, unknown>
  for (const [key, v] of Object.entries(value)) {
    if (ID_KEYS.has(key) && typeof v === 'string') copy[key] = '<ID>'
    else if (TIME_KEYS.has(key) && typeof v === 'number') copy[key] = '<TIME>'
    else copy[key] = USER_KEYS.has(key) ? v : adopt(v)
  }
  return copy
}
