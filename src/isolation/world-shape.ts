// What a session's dirs hold right after they were made and seeded, and the check that dirs still hold exactly
// that: every path, its kind and mode, every file's bytes. Dirs that a session left as it found them can be
// handed to the next session made alike (session-dirs.ts), without making, seeding and removing them again.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, type Dirent } from 'node:fs'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import type { SeedEntry } from './seed-files.js'

/** One path in a dir: its mode (the kind's bits included) and, for a regular file, its bytes. */
interface PathShape {
  readonly mode: number
  readonly bytes?: Buffer
}

/** Per root, each path under it ('' for the root itself) as it was. */
export type WorldShape = ReadonlyArray<ReadonlyMap<string, PathShape>>

/** Names the seeds of a world: equal for two sessions whose home and cwd are seeded with the same files, or none. */
export function worldKey(home: readonly SeedEntry[], files: readonly SeedEntry[]): string {
  // No hash for none: a process's first hash costs about 0.3 ms, and most sessions seed nothing.
  if (home.length + files.length === 0) return ''
  const hash = createHash('sha256')
  for (const [side, entries] of [['home', home], ['files', files]] as const) {
    for (const [key, content] of entries) {
      const bytes = typeof content === 'string' ? Buffer.from(content) : content
      hash.update(`${side}\0${key}\0${bytes.length}\0`).update(bytes)
    }
  }
  return hash.digest('base64')
}

/** What `roots` hold now. */
export function shapeOf(roots: readonly string[]): WorldShape {
  return roots.map((root) => {
    const paths = new Map<string, PathShape>()
    walk(root, (path, shape) => (paths.set(path, shape), true))
    return paths
  })
}

/** Whether `roots` hold exactly what `shape` describes; false at the first difference, or when one cannot be read. */
export function hasShape(roots: readonly string[], shape: WorldShape): boolean {
  return roots.every((root, at) => {
    const expected = shape[at]!
    let seen = 0
    const same = walk(root, (path, found) => {
      seen++
      const was = expected.get(path)
      if (was === undefined || was.mode !== found.mode) return false
      return was.bytes === undefined ? found.bytes === undefined : found.bytes !== undefined && was.bytes.equals(found.bytes)
    }, expected)
    return same && seen === expected.size
  })
}

type Visit = (path: string, shape: PathShape) => boolean

/**
 * Visits `root` and every path under it, symlinks not followed, until `visit` returns false. A regular file's
 * bytes are read only when `expected` has a file of its size there (always, without `expected`): a file an
 * extension filled is not read. False when a visit said so or a path could not be read.
 */
function walk(root: string, visit: Visit, expected?: ReadonlyMap<string, PathShape>): boolean {
  try {
    const dirs = ['']
    for (let dir = dirs.pop(); dir !== undefined; dir = dirs.pop()) {
      const full = join(root, dir)
      if (!visit(dir, { mode: lstatSync(full).mode })) return false
      for (const entry of readdirSync(full, { withFileTypes: true }) as Dirent[]) {
        const path = dir === '' ? entry.name : join(dir, entry.name)
        if (entry.isDirectory()) dirs.push(path)
        else if (!visit(path, entry.isFile() ? readFile(join(full, entry.name), expected && (expected.get(path)?.bytes?.length ?? -1)) : { mode: lstatSync(join(full, entry.name)).mode })) return false
      }
    }
    return true
  } catch {
    return false
  }
}

/** A regular file's mode and bytes, the bytes only when it has `size` bytes (when given). */
function readFile(full: string, size?: number): PathShape {
  // A file replaced since its dir was read: a symlink fails instead of being followed, a FIFO does not block.
  const fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const { mode, size: has } = fstatSync(fd)
    if (size !== undefined && size !== has) return { mode }
    const bytes = Buffer.allocUnsafe(has)
    for (let read = 0; read < has; ) {
      const got = readSync(fd, bytes, read, has - read, read)
      if (got === 0) return { mode }
      read += got
    }
    return { mode, bytes }
  } finally {
    closeSync(fd)
  }
}
