// Temp dirs kept after use for a later take under a key, instead of being removed: a dir's files cost the
// disk to write and to remove, and a later user that needs the same ones can take them as they are. A taken
// dir gets a new name, so its old path is gone as if removed; the next settle removes what no take took.
import { renameSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { dirname, join } from 'node:path'
import { processSlot } from '../shared/global-slot.js'
import { currentTmpdir, releaseTempDir, untilSettle } from './temp-dirs.js'

/** A dir taken from temp-dirs.ts, with the prefix and `within` it was taken with. */
export interface KeptDir {
  readonly root: string
  readonly prefix: string
  readonly within?: string
}

/** Dirs kept together, with what their keeper knows of them, until a take or the next settle. */
interface Kept {
  readonly dirs: readonly KeptDir[]
  readonly about: unknown
  readonly taken: () => void
}

// A few a key: as many as sessions made alike are likely to run at once.
const KEPT_PER_KEY = 3

// One per process, as temp-dirs.ts's state: a file's sessions and the settle at its end may be two copies.
const keptByKey = processSlot('kept-dirs', () => new Map<string, Kept[]>())

/** Keeps `dirs` (released by their user) for takeKeptDirs(`key`), with `about` them; beyond a few a key, removes them. */
export function keepDirs(key: string, dirs: readonly KeptDir[], about: unknown): void {
  const kept = keptByKey.get()
  const queue = kept.get(key) ?? []
  if (queue.length >= KEPT_PER_KEY) return release(dirs)
  kept.set(key, queue)
  const entry: Kept = {
    dirs,
    about,
    taken: untilSettle(() => {
      leave(key, queue, entry)
      release(dirs)
    }),
  }
  queue.push(entry)
}

/**
 * The dirs last kept under `key` (the likeliest to be in the disk's cache, and the ones the session just
 * ended left), each renamed to a new name of its prefix, with what was kept about them; undefined when none
 * are kept, or they are not under the OS temp dir as it is now, or a rename failed (then they are removed).
 */
export function takeKeptDirs(key: string): { roots: string[]; about: unknown } | undefined {
  const queue = keptByKey.get().get(key)
  const entry = queue?.at(-1)
  if (entry === undefined) return undefined
  leave(key, queue!, entry)
  entry.taken()
  const roots = entry.dirs.map((dir) => dir.root)
  // Kept under another TMPDIR (it changed since), they are not where this caller expects them.
  const base = currentTmpdir()
  let usable = roots.every((root) => dirname(dirname(root)) === base)
  entry.dirs.forEach((dir, at) => {
    if (!usable) return
    const renamed = join(dirname(dir.root), `${dir.prefix}${randomUUID().slice(-12)}`)
    try {
      renameSync(dir.root, renamed)
      roots[at] = renamed
    } catch {
      usable = false
    }
  })
  if (usable) return { roots, about: entry.about }
  release(entry.dirs.map((dir, at) => ({ ...dir, root: roots[at]! })))
  return undefined
}

function leave(key: string, queue: Kept[], entry: Kept): void {
  queue.splice(queue.indexOf(entry), 1)
  if (queue.length === 0) keptByKey.get().delete(key)
}

function release(dirs: readonly KeptDir[]): void {
  for (const dir of dirs) releaseTempDir(dir.root, undefined, dir.within)
}
