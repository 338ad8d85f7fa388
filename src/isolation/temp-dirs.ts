// Temp dirs off the test's critical path. Making and removing a dir costs a few syscalls that wait on the
// disk (about 1 ms a session on a busy ext4), so the next dir of each kind is made in the background while
// the current one is in use, and a finished dir is removed in the background. `settleTempDirs()` waits for
// all of it and removes the dirs made ahead (the environment awaits it when a test file ends); an exit
// hook removes, synchronously, whatever a process still holds when it exits.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { mkdir, mkdtemp, rm, rmdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { messageOf } from '../shared/errors.js'
import { processSlot } from '../shared/global-slot.js'

/** A kind of temp dir: `<tmp>/<prefix>XXXXXX` holding the empty `subdirs`. */
export interface TempDirKind {
  prefix: string
  subdirs: readonly string[]
}

interface TempDirState {
  /** Per prefix, the dirs made ahead and not yet taken, with their kind. */
  ready: Map<string, { roots: string[]; kind: TempDirKind }>
  /** Per prefix, how many dirs are being made ahead. */
  making: Map<string, number>
  /** Dirs being made ahead or removed. */
  pending: Set<Promise<void>>
  /** Every dir that exists because of this module (taken, ready or being removed): what the exit hook removes. */
  held: Set<string>
  /** Removals that failed, reported by the next settleTempDirs(). */
  failures: string[]
}

// Dirs of each kind kept made ahead. A made dir is ready only once the event loop has turned, which a
// session's promise chains may not let it do for a whole session or two.
const AHEAD = 3

// One per process: the module may be evaluated again for each test file, and in a VM pool the sessions'
// copy runs in the file's realm while the environment that settles at the file's end runs outside it.
const state = processSlot<TempDirState>('temp-dirs', () => {
  const created: TempDirState = { ready: new Map(), making: new Map(), pending: new Set(), held: new Set(), failures: [] }
  process.once('exit', () => {
    for (const root of created.held) rmSync(root, { recursive: true, force: true })
  })
  return created
})

/**
 * A new dir of `kind`, with its subdirs, under the OS temp dir as it is now: one made ahead when there
 * is one, else made here. Either way the next ones start being made in the background.
 */
export function takeTempDir(kind: TempDirKind): string {
  const { held } = state.get()
  const base = tmpdir()
  let root = readyFor(kind).roots.shift()
  // Made ahead under another TMPDIR (it changed since): not where this caller expects it.
  if (root !== undefined && dirname(root) !== base) {
    releaseTempDir(root, kind)
    root = undefined
  }
  if (root === undefined) {
    root = mkdtempSync(join(base, kind.prefix))
    held.add(root)
    try {
      for (const subdir of kind.subdirs) mkdirSync(join(root, subdir))
    } catch (error) {
      held.delete(root)
      rmSync(root, { recursive: true, force: true })
      throw error
    }
  }
  makeAhead(kind, base)
  return root
}

/** Removes `root` in the background: an rmdir per dir when nothing was written, else a recursive removal. */
export function releaseTempDir(root: string, kind: TempDirKind): void {
  const { held, failures } = state.get()
  track(
    (async () => {
      try {
        for (const subdir of kind.subdirs) await rmdir(join(root, subdir))
        await rmdir(root)
      } catch {
        await rm(root, { recursive: true, force: true })
      }
    })().then(
      () => void held.delete(root),
      (error: unknown) => void failures.push(`${root}: ${messageOf(error)}`),
    ),
  )
}

/**
 * Waits until every dir released so far is removed, and removes the dirs made ahead: afterwards no dir of
 * this module's exists except those still in use. Rejects naming the dirs it could not remove.
 */
export async function settleTempDirs(): Promise<void> {
  const { ready, pending, failures } = state.get()
  for (;;) {
    for (const { roots, kind } of ready.values()) for (const root of roots.splice(0)) releaseTempDir(root, kind)
    if (pending.size === 0) break
    await Promise.all(pending)
  }
  if (failures.length > 0) {
    const failed = failures.splice(0)
    throw new Error(`could not remove ${failed.length === 1 ? 'a temp dir' : `${failed.length} temp dirs`}:\n  ${failed.join('\n  ')}`)
  }
}

function readyFor(kind: TempDirKind): { roots: string[]; kind: TempDirKind } {
  const { ready } = state.get()
  let entry = ready.get(kind.prefix)
  if (entry === undefined) ready.set(kind.prefix, (entry = { roots: [], kind }))
  return entry
}

// Best effort: a dir that cannot be made ahead is made when it is taken, where its error is reported.
function makeAhead(kind: TempDirKind, base: string): void {
  const { making, held } = state.get()
  const roots = readyFor(kind).roots
  for (let count = making.get(kind.prefix) ?? 0; roots.length + count < AHEAD; count++) {
    making.set(kind.prefix, count + 1)
    track(
      (async () => {
        const root = await mkdtemp(join(base, kind.prefix))
        held.add(root)
        try {
          await Promise.all(kind.subdirs.map((subdir) => mkdir(join(root, subdir))))
          roots.push(root)
        } catch {
          releaseTempDir(root, kind)
        }
      })()
        .catch(() => undefined)
        .finally(() => making.set(kind.prefix, (making.get(kind.prefix) ?? 1) - 1)),
    )
  }
}

function track(work: Promise<void>): void {
  const { pending } = state.get()
  pending.add(work)
  void work.finally(() => pending.delete(work))
}
