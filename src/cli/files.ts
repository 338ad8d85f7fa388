// Writing a project's files as init and codegen do: never over a different file without --force, and
// saying for each what happened, so a second run reports "unchanged" and changes nothing.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, relative } from 'node:path'

export type Outcome = 'created' | 'updated' | 'unchanged' | 'kept'

export interface Change {
  /** Relative to the project. */
  readonly file: string
  readonly outcome: Outcome
  /** Why, or what to do by hand. */
  readonly note?: string
}

/** Writes `text` to `file` unless the file already has it; a different file is kept unless `force`. */
export function writeFile(dir: string, file: string, text: string, force: boolean): Change {
  const shown = relative(dir, file)
  if (existsSync(file)) {
    if (readFileSync(file, 'utf8') === text) return { file: shown, outcome: 'unchanged' }
    if (!force) return { file: shown, outcome: 'kept', note: 'it exists and differs: run with --force to overwrite it' }
    writeFileSync(file, text)
    return { file: shown, outcome: 'updated' }
  }
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
  return { file: shown, outcome: 'created' }
}

/** Replaces an existing file's text with its edited version (an edit keeps what the user wrote). */
export function editFile(dir: string, file: string, before: string, after: string, note?: string): Change {
  const shown = relative(dir, file)
  if (before === after) return { file: shown, outcome: 'unchanged', ...(note ? { note } : {}) }
  writeFileSync(file, after)
  return { file: shown, outcome: 'updated', ...(note ? { note } : {}) }
}

/** One line per change, as the command prints them. */
export function describeChange({ file, outcome, note }: Change): string {
  return `  ${outcome.padEnd(9)} ${file}${note ? `: ${note}` : ''}`
}
