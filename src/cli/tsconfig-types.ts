// Adds the package to tsconfig.json's `types`, which is what types `expect(t).toHaveBlocked(...)` for tsc.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { editFile, writeFile, type Change } from './files.js'
import { indentOf } from './project.js'

const TYPES_ENTRY = 'vitest-environment-pi'

/** The tsconfig a TypeScript package without one gets (the README's quick start). */
export function newTsconfig(withNodeTypes: boolean): string {
  const types = withNodeTypes ? ['node', TYPES_ENTRY] : [TYPES_ENTRY]
  const config = {
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types },
  }
  return `${JSON.stringify(config, null, 2)}\n`
}

/**
 * The tsconfig text with the entry in `compilerOptions.types`, or `{ problem }`. Plain JSON is parsed and
 * written back with its indentation; a file with comments is edited only where it already has one
 * `"types": [` (an edit there cannot misplace the entry).
 */
export function addTypesEntry(text: string, withNodeTypes: boolean): { text: string } | { problem: string } {
  let config: { compilerOptions?: { types?: unknown } } | undefined
  try {
    config = JSON.parse(text) as typeof config
  } catch {
    const lists = [...text.matchAll(/"types"\s*:\s*\[/g)]
    if (lists.length !== 1) return { problem: 'it is not plain JSON (comments?) and has no single "types" list to add to' }
    if (new RegExp(`["']${TYPES_ENTRY}["']`).test(text)) return { text }
    const at = lists[0]!.index! + lists[0]![0].length
    return { text: text.slice(0, at) + `"${TYPES_ENTRY}"` + (/^\s*\]/.test(text.slice(at)) ? '' : ', ') + text.slice(at) }
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return { problem: 'it is not a JSON object' }
  const options = (config.compilerOptions ??= {})
  if (options.types !== undefined && !Array.isArray(options.types)) return { problem: '"compilerOptions.types" is not a list' }
  const types = (options.types as unknown[] | undefined) ?? []
  if (types.includes(TYPES_ENTRY)) return { text }
  // A `types` list turns off the automatic @types/*: a new list keeps Node's.
  options.types = options.types === undefined && withNodeTypes ? ['node', TYPES_ENTRY] : [...types, TYPES_ENTRY]
  return { text: `${JSON.stringify(config, null, indentOf(text))}\n` }
}

export function setUpTsconfig(dir: string, force: boolean): Change {
  const file = join(dir, 'tsconfig.json')
  const withNodeTypes = existsSync(join(dir, 'node_modules/@types/node'))
  if (!existsSync(file)) return writeFile(dir, file, newTsconfig(withNodeTypes), force)
  const before = readFileSync(file, 'utf8')
  const edited = addTypesEntry(before, withNodeTypes)
  if ('problem' in edited) return { file: 'tsconfig.json', outcome: 'kept', note: `not edited (${edited.problem}): add "${TYPES_ENTRY}" to compilerOptions.types` }
  return editFile(dir, file, before, edited.text)
}
