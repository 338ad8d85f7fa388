// Snapshots of records and events that stay the same across runs and machines:
// ids become <ID>, timestamps <TIME>, the session's temp dirs <CWD> and <HOME>.
import { tmpdir } from 'node:os'
import type { SnapshotSerializer } from 'vitest'
import { escapeRegExp } from './escape-regexp.js'

const TEMP = escapeRegExp(tmpdir())
// A session's dirs and the file's home that code outside sessions sees, all in the process's own temp dir.
const OWN = `${TEMP}/pi-harness-[A-Za-z0-9]+`
const PATHS: [RegExp, string][] = [
  [new RegExp(`${OWN}/session-cwd-[A-Za-z0-9]+`, 'g'), '<CWD>'],
  [new RegExp(`${OWN}/session-home-[A-Za-z0-9]+`, 'g'), '<HOME>'],
  [new RegExp(`${OWN}/file-home-[A-Za-z0-9]+`, 'g'), '<HOME>'],
]
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi
const ID_KEYS = new Set(['id', 'toolCallId', 'parentId', 'sessionId', 'responseId', 'entryId'])
const TIME_KEYS = new Set(['timestamp', 'durationMs', 'startedAt', 'endedAt'])

function normaliseText(text: string): string {
  let out = text.replace(UUID, '<ID>')
  for (const [pattern, replacement] of PATHS) out = out.replace(pattern, replacement)
  return out
}

const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && [Object.prototype, null].includes(Object.getPrototypeOf(value))

function needsWork(value: Record<string, unknown>): boolean {
  return Object.entries(value).some(
    ([key, v]) => (ID_KEYS.has(key) && typeof v === 'string' && v !== '<ID>') || (TIME_KEYS.has(key) && typeof v === 'number'),
  )
}

export const piSerializer: SnapshotSerializer = {
  test: (value) => (typeof value === 'string' ? normaliseText(value) !== value : isPlain(value) && needsWork(value)),
  serialize(value, config, indentation, depth, refs, printer) {
    if (typeof value === 'string') return printer(normaliseText(value), config, indentation, depth, refs)
    // pretty-format asks plugins before its own cycle check; with the original on the path it finds cycles back to it.
    if (refs.includes(value)) return '[Circular]'
    const copy: Record<string, unknown> = {}
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (ID_KEYS.has(key) && typeof v === 'string') copy[key] = '<ID>'
      else if (TIME_KEYS.has(key) && typeof v === 'number') copy[key] = '<TIME>'
      else copy[key] = v
    }
    return printer(copy, config, indentation, depth, [...refs, value])
  },
}
