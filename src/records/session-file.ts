// Reads a Pi session file (JSONL, version 3, as Pi 0.73 and 1.x write it): the header, then the entries
// on the branch that ends at the last one, each with its line, so every problem can name file and line.
import { readFileSync } from 'node:fs'
import { messageOf } from '../shared/errors.js'

/** The session format both Pi lines write (`CURRENT_SESSION_VERSION`). */
export const SESSION_VERSION = 3

/** A session entry as the file has it: `type`, `id`, `parentId`, and the fields of its type. */
export interface SessionFileEntry {
  readonly type: string
  readonly id: string
  readonly parentId: string | null
  readonly [field: string]: unknown
}

export interface LocatedEntry {
  /** 1-based line of the file. */
  readonly line: number
  readonly entry: SessionFileEntry
}

/** A problem with the file, named by file and line: `session.jsonl:3: not JSON (…)`. */
export class SessionFileError extends Error {
  constructor(file: string, line: number | undefined, problem: string) {
    super(`${line === undefined ? file : `${file}:${line}`}: ${problem}`)
  }
}

/** The entries of the file's current branch (root to the last entry), in order. */
export function readSessionFile(file: string): LocatedEntry[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new SessionFileError(file, undefined, `cannot read the session file: ${messageOf(error)}`)
  }
  // An editor's byte order mark is not part of the first line's JSON.
  const lines = text.replace(/^\uFEFF/, '').split('\n')
  const located: LocatedEntry[] = []
  lines.forEach((source, index) => {
    if (source.trim() === '') return
    const line = index + 1
    let value: unknown
    try {
      value = JSON.parse(source)
    } catch (error) {
      throw new SessionFileError(file, line, `not JSON (${visible(messageOf(error))}): a Pi session file has one JSON object per line`)
    }
    located.push({ line, entry: entryAt(file, line, value, located.length === 0) })
  })
  if (located.length === 0) throw new SessionFileError(file, undefined, 'empty: a Pi session file starts with a {"type":"session",...} header line')
  return branchToLast(file, located.slice(1))
}

function entryAt(file: string, line: number, value: unknown, first: boolean): SessionFileEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SessionFileError(file, line, `${JSON.stringify(value)} is not a session entry (an object with a "type")`)
  }
  const { type, id, version } = value as Record<string, unknown>
  if (first) {
    if (type !== 'session') {
      throw new SessionFileError(file, line, `not a Pi session header: the first line is {"type":"session","version":${SESSION_VERSION},...}, this one has type ${JSON.stringify(type)}`)
    }
    if (version !== SESSION_VERSION) {
      throw new SessionFileError(
        file,
        line,
        `session version ${JSON.stringify(version ?? 1)}; replay reads version ${SESSION_VERSION}, which Pi 0.73 and 1.x write (Pi migrates an older file when it opens it)`,
      )
    }
    return value as SessionFileEntry
  }
  if (type === 'session') throw new SessionFileError(file, line, 'a second session header: one file holds one session')
  if (typeof type !== 'string' || typeof id !== 'string') {
    throw new SessionFileError(file, line, `not a session entry: it needs a string "type" and "id", got type ${JSON.stringify(type)} and id ${JSON.stringify(id)}`)
  }
  return value as SessionFileEntry
}

// Characters a terminal does not show (a byte order mark, zero-width spaces, controls), written as escapes.
const visible = (text: string) => text.replace(/[\u0000-\u001f\u007f\u200b-\u200f\u2028\u2029\ufeff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`)

/** As Pi resumes a session: from the last entry up its parents to the root, then in order. */
function branchToLast(file: string, entries: LocatedEntry[]): LocatedEntry[] {
  const byId = new Map(entries.map((located) => [located.entry.id, located]))
  const branch: LocatedEntry[] = []
  const seen = new Set<LocatedEntry>()
  let current = entries.at(-1)
  while (current) {
    if (seen.has(current)) throw new SessionFileError(file, current.line, 'the entries\' parentIds make a cycle')
    branch.push(current)
    seen.add(current)
    const parentId = current.entry.parentId
    if (parentId === null || parentId === undefined) break
    const parent = byId.get(parentId)
    if (!parent) throw new SessionFileError(file, current.line, `the entry's parentId ${JSON.stringify(parentId)} names no entry of the file`)
    current = parent
  }
  return branch.reverse()
}
