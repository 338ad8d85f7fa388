// Files written into a session's home or cwd before anything of its extensions runs: what a user's
// machine holds before Pi starts (settings, models.json, the project's own files).
import { closeSync, constants, mkdirSync, openSync, realpathSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path'
import { describeReceived } from '../shared/errors.js'

/** File paths relative to the dir, each with its content: an object or array as JSON, a string or bytes as they are. */
export type SeedFiles = Record<string, string | Uint8Array | object>

const isPlainObject = (value: unknown) => Object.prototype.toString.call(value) === '[object Object]'

/** What is wrong with one seeded file's path or content, as the end of `option "<path>" must be …`, or undefined. */
export function seedFileProblem(key: string, content: unknown, option: string): string | undefined {
  const where = `option "${option}"`
  if (key === '' || isAbsolute(key) || /^[A-Za-z]:/.test(key)) return `${where} must be a path relative to the dir, got ${JSON.stringify(key)}`
  const normal = normalize(key)
  if (normal === '..' || normal.startsWith(`..${sep}`) || normal === '.' || normal.endsWith(sep)) {
    return `${where} names a path outside the dir (or the dir itself): ${JSON.stringify(key)}; seeded files stay inside the session's home and cwd`
  }
  if (typeof content === 'string' || content instanceof Uint8Array || Array.isArray(content) || isPlainObject(content)) return undefined
  return `${where} must be the file's content: a string, a Buffer, or an object or array (written as JSON), got ${describeReceived(content)}`
}

/** One seeded file: its path relative to the dir, and its content as written. */
export type SeedEntry = readonly [key: string, content: string | Uint8Array]

/** `files` checked (a bad key throws, named by `nameOf(key)`), each with its content as written: objects and arrays as JSON. */
export function seedEntries(files: SeedFiles, nameOf: (key: string) => string): SeedEntry[] {
  return Object.entries(files).map(([key, content]) => {
    const problem = seedFileProblem(key, content, nameOf(key))
    if (problem !== undefined) throw new TypeError(`createTestSession: ${problem}`)
    return [key, typeof content === 'string' || content instanceof Uint8Array ? content : `${JSON.stringify(content, null, 2)}\n`]
  })
}

/**
 * Writes `entries` under `dir` (made by the harness, or given by the test): parent dirs are made, and a path
 * that reaches outside `dir` through a symlink already there is refused, naming the key (`nameOf(key)`).
 */
export function writeSeedFiles(dir: string, entries: readonly SeedEntry[], nameOf: (key: string) => string): void {
  const root = realpathSync.native(dir)
  // Each parent made and resolved once: ten files cost about ten opens and writes, not forty calls.
  const parents = new Map<string, string>()
  for (const [key, content] of entries) {
    const name = nameOf(key)
    const target = join(root, key)
    const parent = dirname(target)
    try {
      let resolved = parents.get(parent)
      if (resolved === undefined) {
        if (parent !== root) mkdirSync(parent, { recursive: true })
        parents.set(parent, (resolved = realpathSync.native(parent)))
      }
      const refuse = () => new TypeError(`createTestSession: option "${name}" reaches outside the dir through a symlink (${resolved}); seeded files stay inside the session's home and cwd`)
      if (isOutside(root, resolved)) throw refuse()
      writeFileRefusingSymlink(target, content, refuse)
    } catch (error) {
      throw unwritable(error, name)
    }
  }
}

// A file seeded where another seed (or the dir) needs a directory, or the reverse: name the key, not just the errno.
function unwritable(error: unknown, name: string): unknown {
  const code = (error as NodeJS.ErrnoException).code
  if (code === undefined) return error
  const why =
    code === 'EEXIST' || code === 'ENOTDIR' ? 'one of its parent paths is a file (another seeded key, or a file already there)'
    : code === 'EISDIR' ? 'a directory is at that path (another seeded key lies under it)'
    : (error as Error).message
  return new TypeError(`createTestSession: option "${name}" cannot be written: ${why}`, { cause: error })
}

// O_NOFOLLOW: a symlink at the file's own path fails the open (ELOOP) instead of writing where it points.
function writeFileRefusingSymlink(path: string, content: string | Uint8Array, refuse: () => Error): void {
  let fd: number
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o666)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw refuse()
    throw error
  }
  try {
    writeFileSync(fd, content)
  } finally {
    closeSync(fd)
  }
}

function isOutside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)
}
