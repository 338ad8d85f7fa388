// Temp dirs off the test's critical path. Making and removing a dir costs syscalls that wait on the disk
// (about 1 ms a session on a busy ext4), so the next dirs of each kind are made in the background while
// the current one is in use, and a finished dir is removed in the background. `settleTempDirs()` waits for
// all of it and removes the dirs made ahead (the environment awaits it when a test file ends); an exit
// hook removes, synchronously, whatever a process still holds when it exits.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { mkdir, rm, rmdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { messageOf } from '../shared/errors.js'
import { processSlot } from '../shared/global-slot.js'

/** A kind of temp dir: `<tmp>/<prefix>XXXXXX` holding the empty `subdirs`. */
export interface TempDirKind {
  prefix: string
  subdirs: readonly string[]
}

/** A dir being made ahead: `root` is set once it exists with its subdirs. */
interface MadeAhead {
  kind: TempDirKind
  made: Promise<void>
  root?: string
}

interface TempDirState {
  /** Per prefix, the dirs made ahead (or being made), oldest first. */
  ahead: Map<string, MadeAhead[]>
  /** Dirs being made ahead or removed. */
  pending: Set<Promise<void>>
  /** Every dir that exists because of this module (taken, made ahead or being removed): what the exit hook removes. */
  held: Set<string>
  /** Removals that failed, reported by the next settleTempDirs(). */
  failures: string[]
  /** Per prefix, the dirs taken since the last settle. */
  takes: Map<string, number>
}

// Dirs of each kind kept made ahead. A session's promise chains may not let the event loop turn, and a dir
// made ahead is known to exist only once it has: a few in flight cover sessions run back to back. A kind
// taken once since the last settle may never be taken again before the next (a file's home, a file of one
// session): none is made ahead for it, and one more for each further take, up to AHEAD.
const AHEAD = 3

// One per process: the module may be evaluated again for each test file, and in a VM pool the sessions'
// copy runs in the file's realm while the environment that settles at the file's end runs outside it.
const state = processSlot<TempDirState>('temp-dirs', () => {
  const created: TempDirState = { ahead: new Map(), pending: new Set(), held: new Set(), failures: [], takes: new Map() }
  process.once('exit', () => {
    for (const root of created.held) removeAtExit(root)
  })
  return created
})

// A removal still running on libuv's threads when the process exits can take an entry from under rmSync,
// which then may throw or (Node 24) return with the dir still there: try again while it is there, and never
// let one dir keep the others from being removed.
function removeAtExit(root: string): void {
  for (let attempt = 1; attempt <= 3 && existsSync(root); attempt++) {
    try {
      rmSync(root, { recursive: true, force: true })
    } catch {
      // Tried again while the dir is there.
    }
  }
}

/**
 * A new dir of `kind`, with its subdirs, under the OS temp dir as it is now: the oldest made ahead,
 * waited for if it is still being made, else one made here. Either way more start being made ahead.
 */
export async function takeTempDir(kind: TempDirKind): Promise<string> {
  const base = currentTmpdir()
  const queue = aheadOf(kind)
  let root: string | undefined
  while (root === undefined && queue.length > 0) {
    const next = queue.shift()!
    await next.made
    root = usable(next, base)
  }
  return handOut(root ?? makeNow(kind, base), kind, base)
}

/** The same, without waiting: a dir made ahead if one is known to exist, else one made here. */
export function takeTempDirSync(kind: TempDirKind): string {
  const base = currentTmpdir()
  const queue = aheadOf(kind)
  const made = () => queue.findIndex((entry) => entry.root !== undefined)
  let root: string | undefined
  for (let at = made(); root === undefined && at >= 0; at = made()) root = usable(queue.splice(at, 1)[0]!, base)
  return handOut(root ?? makeNow(kind, base), kind, base)
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
  const { ahead, pending, failures, takes } = state.get()
  takes.clear()
  for (;;) {
    for (const queue of ahead.values()) {
      for (const entry of queue.splice(0)) track(entry.made.then(() => entry.root !== undefined && releaseTempDir(entry.root, entry.kind)))
    }
    if (pending.size === 0) break
    await Promise.all(pending)
  }
  if (failures.length > 0) {
    const failed = failures.splice(0)
    throw new Error(`could not remove ${failed.length === 1 ? 'a temp dir' : `${failed.length} temp dirs`}:\n  ${failed.join('\n  ')}`)
  }
}

// os.tmpdir() reads its variables through Node's setuid-safe getenv, about 20 µs a call on a 2-core VM,
// twice a session; process.env reads them in under 1 µs, so it is asked again only when one changed.
let tmpdirFor: { vars: string; base: string } | undefined
function currentTmpdir(): string {
  const { TMPDIR, TMP, TEMP } = process.env
  const vars = `${TMPDIR}\0${TMP}\0${TEMP}`
  if (tmpdirFor?.vars !== vars) tmpdirFor = { vars, base: tmpdir() }
  return tmpdirFor.base
}

function aheadOf(kind: TempDirKind): MadeAhead[] {
  const { ahead } = state.get()
  let queue = ahead.get(kind.prefix)
  if (queue === undefined) ahead.set(kind.prefix, (queue = []))
  return queue
}

// Made ahead under another TMPDIR (it changed since), it is not where this caller expects it.
function usable(entry: MadeAhead, base: string): string | undefined {
  if (entry.root === undefined || dirname(entry.root) === base) return entry.root
  releaseTempDir(entry.root, entry.kind)
  return undefined
}

function handOut(root: string, kind: TempDirKind, base: string): string {
  const { takes } = state.get()
  const taken = (takes.get(kind.prefix) ?? 0) + 1
  takes.set(kind.prefix, taken)
  const queue = aheadOf(kind)
  while (queue.length < Math.min(AHEAD, taken - 1)) queue.push(makeAhead(kind, base))
  return root
}

function makeNow(kind: TempDirKind, base: string): string {
  const { held } = state.get()
  const root = mkdtempSync(join(base, kind.prefix))
  held.add(root)
  try {
    for (const subdir of kind.subdirs) mkdirSync(join(root, subdir))
  } catch (error) {
    held.delete(root)
    rmSync(root, { recursive: true, force: true })
    throw error
  }
  return root
}

// Best effort: a dir that cannot be made ahead is made when it is taken, where its error is reported.
function makeAhead(kind: TempDirKind, base: string): MadeAhead {
  const { held } = state.get()
  const entry: MadeAhead = { kind, made: Promise.resolve() }
  entry.made = (async () => {
    // Named here, not by mkdtemp, so that the exit hook knows the dir before it exists: a process that
    // exits while a dir is being made ahead leaves nothing behind.
    // 48 random bits; randomUUID draws them from a pool, where randomBytes makes a syscall each time.
    const root = join(base, `${kind.prefix}${randomUUID().slice(-12)}`)
    held.add(root)
    try {
      await mkdir(root, { mode: 0o700 })
    } catch {
      // Taken already (someone else's) or not makeable here: not ours to remove.
      held.delete(root)
      return
    }
    try {
      await Promise.all(kind.subdirs.map((subdir) => mkdir(join(root, subdir))))
      entry.root = root
    } catch {
      releaseTempDir(root, kind)
    }
  })().catch(() => undefined)
  track(entry.made)
  return entry
}

function track(work: Promise<unknown>): void {
  const { pending } = state.get()
  const tracked = work.then(() => undefined)
  pending.add(tracked)
  void tracked.finally(() => pending.delete(tracked))
}
