// Temp dirs off the test's critical path. Making and removing a dir costs syscalls that wait on the disk
// (about 1 ms a session on a busy ext4), so the next dirs of each prefix are made in the background while
// the current one is in use, and a finished dir is removed in the background (or kept for a later take:
// kept-dirs.ts). `settleTempDirs()` waits for all of it and removes the dirs made ahead and those kept (the
// environment awaits it when a test file ends); an exit hook removes, synchronously, whatever a process still
// holds when it exits.
//
// Every dir lives in one dir of the process's own under the OS temp dir, `<tmp>/pi-harness-XXXXXX`. A dir
// being made on libuv's threads when the process exits may be made after the exit hook ran (queued work
// still runs): in a parent the hook has removed, making it fails instead of leaving it behind.
import { mkdir, mkdirSync, mkdtempSync, rm, rmdir } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { rmdir as rmdirNow } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, normalize, sep } from 'node:path'
import { messageOf } from '../shared/errors.js'
import { processSlot } from '../shared/global-slot.js'
import { removeAtExit, removeTree, restoreAccess } from './remove-tree.js'

/** A dir being made ahead: `root` is set once it exists. */
interface MadeAhead {
  made: Promise<void>
  root?: string
}

interface TempDirState {
  /** Per OS temp dir, the process's own dir there, which holds all the others. */
  parents: Map<string, string>
  /** Per prefix, the dirs made ahead (or being made), oldest first. */
  ahead: Map<string, MadeAhead[]>
  /** Dirs being made ahead or removed. */
  pending: Set<Promise<void>>
  /** Removals that failed, reported by the next settleTempDirs(). */
  failures: string[]
  /** Per prefix, the dirs taken since the last settle. */
  takes: Map<string, number>
  /** What holds dirs until the next settle, told to let go of them as it starts. */
  settling: Set<() => void>
}

const PARENT_PREFIX = 'pi-harness-'

// Dirs of each prefix kept made ahead. A session's promise chains may not let the event loop turn, and a dir
// made ahead is known to exist only once it has: a few in flight cover sessions run back to back. A prefix
// taken once since the last settle may never be taken again before the next (a file's home, a file of one
// session): none is made ahead for it, and one more for each further take, up to AHEAD.
const AHEAD = 3

// One per process: the module may be evaluated again for each test file, and in a VM pool the sessions'
// copy runs in the file's realm while the environment that settles at the file's end runs outside it.
const state = processSlot<TempDirState>('temp-dirs', () => {
  const created: TempDirState = { parents: new Map(), ahead: new Map(), pending: new Set(), failures: [], takes: new Map(), settling: new Set() }
  process.once('exit', () => {
    for (const parent of created.parents.values()) removeAtExit(parent)
  })
  return created
})

/**
 * A new dir `<prefix>XXXXXX` in the process's dir under the OS temp dir as it is now, empty but for the dirs
 * of `within` (a relative path, e.g. `.pi/agent`, made with mode 0700): the oldest made ahead, waited for if
 * it is still being made, else one made here. Either way more start being made ahead. A prefix is always
 * taken with the same `within`.
 */
export async function takeTempDir(prefix: string, within?: string): Promise<string> {
  const base = currentTmpdir()
  const queue = aheadOf(prefix)
  let root: string | undefined
  while (root === undefined && queue.length > 0) {
    const next = queue.shift()!
    await next.made
    root = usable(next, base)
  }
  return handOut(root ?? makeNow(prefix, base, within), prefix, base, within)
}

/** The same, without waiting: a dir made ahead if one is known to exist, else one made here. */
export function takeTempDirSync(prefix: string): string {
  const base = currentTmpdir()
  const queue = aheadOf(prefix)
  const made = () => queue.findIndex((entry) => entry.root !== undefined)
  let root: string | undefined
  for (let at = made(); root === undefined && at >= 0; at = made()) root = usable(queue.splice(at, 1)[0]!, base)
  return handOut(root ?? makeNow(prefix, base), prefix, base)
}

/** Calls `letGo` as the next settle starts, unless the returned function is called first. */
export function untilSettle(letGo: () => void): () => void {
  const { settling } = state.get()
  settling.add(letGo)
  return () => settling.delete(letGo)
}

/**
 * Removes `root` in the background: when nothing was written in it, one rmdir for each dir of `within` (as
 * takeTempDir made them, deepest first) and one for `root`, else a recursive removal. A dir in it that was
 * made unreadable (`chmod 000`) gets its permissions back first; what still cannot be removed is reported by
 * the next settleTempDirs(), naming `owner` (whose dir it was) when given.
 */
export function releaseTempDir(root: string, owner?: () => string, within?: string): void {
  const { failures } = state.get()
  const removeAll = (then: (failed: Error | null) => void) => rm(root, { recursive: true, force: true }, then)
  // A recursive removal reads every dir before it removes it: a few rmdirs in a row are a third of its calls.
  const emptyFirst = within === undefined ? [] : ancestorsWithin(within).map((dir) => join(root, dir))
  inBackground((done) => {
    const next = (at: number) =>
      rmdir(emptyFirst[at] ?? root, (error) => {
        if (error === null) return at < emptyFirst.length ? next(at + 1) : done()
        removeTree(root, (failed) => {
          if (failed === null) return done()
          // Node's own removal, which retries what a busy file system refuses, once access is back.
          restoreAccess(root)
          removeAll((again) => {
            if (again !== null) failures.push(`${root}${owner ? ` (${owner()})` : ''}: ${messageOf(again)}`)
            done()
          })
        })
      })
    next(0)
  })
}

/** `a/b/c` → `a/b/c`, `a/b`, `a`: the dirs takeTempDir made in a root, deepest first. */
function ancestorsWithin(within: string): string[] {
  const dirs: string[] = []
  for (let dir = normalize(within); dir !== '.' && dir !== sep && dir !== ''; dir = dirname(dir)) dirs.push(dir)
  return dirs
}

/**
 * Waits until every dir released so far is removed, and removes the dirs made ahead and those kept, then the
 * process's own dirs that are left empty: afterwards no dir of this module's exists except those still in use
 * (and the dirs holding them). Rejects naming the dirs it could not remove.
 */
export async function settleTempDirs(): Promise<void> {
  const { parents, ahead, pending, failures, takes, settling } = state.get()
  takes.clear()
  for (const letGo of settling) letGo()
  settling.clear()
  for (;;) {
    for (const queue of ahead.values()) {
      for (const entry of queue.splice(0)) {
        // Pending until its removal is pending in turn: `pending` never empties between the two.
        inBackground((done) => {
          void entry.made.then(() => {
            if (entry.root !== undefined) releaseTempDir(entry.root)
            done()
          })
        })
      }
    }
    if (pending.size === 0) break
    await Promise.all(pending)
  }
  for (const [base, parent] of parents) {
    try {
      await rmdirNow(parent)
      parents.delete(base)
    } catch (error) {
      // Not empty while a dir in it is in use: it stays until that one is settled, or the process exits.
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT') parents.delete(base)
      else if (code !== 'ENOTEMPTY' && code !== 'EEXIST') failures.push(`${parent}: ${messageOf(error)}`)
    }
  }
  if (failures.length > 0) {
    const failed = failures.splice(0)
    throw new Error(`could not remove ${failed.length === 1 ? 'a temp dir' : `${failed.length} temp dirs`}:\n  ${failed.join('\n  ')}`)
  }
}

// os.tmpdir() reads its variables through Node's setuid-safe getenv, about 20 µs a call on a 2-core VM,
// twice a session; process.env reads them in under 1 µs, so it is asked again only when one changed.
let tmpdirFor: { vars: string; base: string } | undefined
export function currentTmpdir(): string {
  const { TMPDIR, TMP, TEMP } = process.env
  const vars = `${TMPDIR}\0${TMP}\0${TEMP}`
  if (tmpdirFor?.vars !== vars) tmpdirFor = { vars, base: tmpdir() }
  return tmpdirFor.base
}

/** The process's own dir under `base`, made when first needed (again after a settle removed it). */
function parentIn(base: string): string {
  const { parents } = state.get()
  let parent = parents.get(base)
  if (parent === undefined) parents.set(base, (parent = mkdtempSync(join(base, PARENT_PREFIX))))
  return parent
}

function aheadOf(prefix: string): MadeAhead[] {
  const { ahead } = state.get()
  let queue = ahead.get(prefix)
  if (queue === undefined) ahead.set(prefix, (queue = []))
  return queue
}

// Made ahead under another TMPDIR (it changed since), it is not where this caller expects it.
function usable(entry: MadeAhead, base: string): string | undefined {
  if (entry.root === undefined || dirname(dirname(entry.root)) === base) return entry.root
  releaseTempDir(entry.root)
  return undefined
}

function handOut(root: string, prefix: string, base: string, within?: string): string {
  const { takes } = state.get()
  const taken = (takes.get(prefix) ?? 0) + 1
  takes.set(prefix, taken)
  const queue = aheadOf(prefix)
  while (queue.length < Math.min(AHEAD, taken - 1)) queue.push(makeAhead(prefix, base, within))
  return root
}

function makeNow(prefix: string, base: string, within?: string): string {
  let root: string
  try {
    root = mkdtempSync(join(parentIn(base), prefix))
  } catch (error) {
    // The process's dir was removed since it was made (by a settle, or by someone else): made again, once.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    state.get().parents.delete(base)
    root = mkdtempSync(join(parentIn(base), prefix))
  }
  if (within !== undefined) mkdirSync(join(root, within), { recursive: true, mode: 0o700 })
  return root
}

// Best effort: a dir that cannot be made ahead is made when it is taken, where its error is reported.
function makeAhead(prefix: string, base: string, within?: string): MadeAhead {
  const entry: MadeAhead = { made: Promise.resolve() }
  entry.made = inBackground((done) => {
    let root: string
    try {
      // 48 random bits; randomUUID draws them from a pool, where randomBytes makes a syscall each time.
      root = join(parentIn(base), `${prefix}${randomUUID().slice(-12)}`)
    } catch {
      // The process's dir cannot be made here: the take makes its dir itself, and reports why it cannot.
      return done()
    }
    mkdir(root, { mode: 0o700 }, (error) => {
      // Else taken already (by the one made here with mkdtemp) or not makeable here: not ours to remove.
      if (error !== null) return done()
      if (within === undefined) {
        entry.root = root
        return done()
      }
      // One mkdir a dir, outermost first: a recursive mkdir tries the deepest first and fails once more.
      const dirs = ancestorsWithin(within).reverse()
      const next = (at: number) =>
        mkdir(join(root, dirs[at]!), { mode: 0o700 }, (failed) => {
          if (failed === null && at + 1 < dirs.length) return next(at + 1)
          // Else removed again: the take makes its dir itself, and reports why it cannot.
          if (failed === null) entry.root = root
          else releaseTempDir(root)
          done()
        })
      next(0)
    })
  })
  return entry
}

// Background work, pending until it calls `done` once, however it ends (at once or from a callback). Callbacks
// rather than fs/promises, whose calls cost a session's four dirs about 50 promises, each paying for the session
// context's promise hook before Node 24.
function inBackground(work: (done: () => void) => void): Promise<void> {
  const { pending } = state.get()
  let settle!: () => void
  const tracked = new Promise<void>((resolve) => (settle = resolve))
  pending.add(tracked)
  work(() => {
    pending.delete(tracked)
    settle()
  })
  return tracked
}
