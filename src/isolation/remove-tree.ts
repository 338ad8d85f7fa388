// Removing a dir and what it holds, in the background, with fewer calls than `fs.rm`'s recursive removal:
// that one stats every entry, then tries rmdir on each dir before reading it. Here each dir is read once with
// its entries' types, and each entry takes one unlink or rmdir: half the time for a session's seeded files.
import { chmodSync, existsSync, readdir, readdirSync, rmdir, rmSync, unlink, type Dirent } from 'node:fs'
import { join } from 'node:path'

/**
 * Removes `dir` and everything in it (a symlink is removed, not followed; what is already gone is no
 * error), then calls `done` with the first error met, or null.
 */
export function removeTree(dir: string, done: (error: NodeJS.ErrnoException | null) => void): void {
  readdir(dir, { withFileTypes: true }, (error, entries: Dirent[]) => {
    if (error) return done(gone(error))
    let left = entries.length
    let failed: NodeJS.ErrnoException | null = null
    const emptied = () => (failed ? done(failed) : rmdir(dir, (rmdirError) => done(gone(rmdirError))))
    const removed = (entryError: NodeJS.ErrnoException | null) => {
      failed ??= gone(entryError)
      if (--left === 0) emptied()
    }
    if (left === 0) return emptied()
    for (const entry of entries) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) removeTree(path, removed)
      else unlink(path, removed)
    }
  })
}

const gone = (error: NodeJS.ErrnoException | null) => (error?.code === 'ENOENT' ? null : error)

/** Gives the owner read, write and search permission on `dir` and every dir in it, so they can be emptied. */
export function restoreAccess(dir: string): void {
  try {
    chmodSync(dir, 0o700)
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) restoreAccess(join(dir, entry.name))
  } catch {
    // What cannot be reached is reported when its removal fails again.
  }
}

// A removal still running on libuv's threads when the process exits can take an entry from under rmSync,
// and a dir being made can add one, which then may throw or (Node 24) return with the dir still there: try
// again while it is there.
export function removeAtExit(dir: string): void {
  for (let attempt = 1; attempt <= 3 && existsSync(dir); attempt++) {
    try {
      rmSync(dir, { recursive: true, force: true })
    } catch {
      // Tried again while the dir is there.
    }
  }
}
