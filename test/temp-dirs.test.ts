// The temp dirs sessions live in: made ahead and removed in the background, and all gone once settled.
import { execFileSync } from 'node:child_process'
import fs, { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { setEnv } from '../src/shared/env.js'
import { releaseTempDir, settleTempDirs, takeTempDir, takeTempDirSync } from '../src/isolation/temp-dirs.js'

const PREFIX = 'pi-probe-'

// A slow disk, on purpose: every background removal starts `delayMs` later, so that a settle that returned
// before one ended finds the dir still there, every time. The module's named imports of node:fs are live
// bindings to Node's builtin, which syncBuiltinESMExports() updates.
function slowRemovals(delayMs: number): () => void {
  const { rm, rmdir } = fs
  const later = <A extends unknown[]>(remove: (...args: A) => void) => (...args: A) => void setTimeout(() => remove(...args), delayMs)
  fs.rm = later(rm as (...args: unknown[]) => void) as typeof fs.rm
  fs.rmdir = later(rmdir as (...args: unknown[]) => void) as typeof fs.rmdir
  syncBuiltinESMExports()
  return () => {
    Object.assign(fs, { rm, rmdir })
    syncBuiltinESMExports()
  }
}

// A disk that refuses to remove anything under `root`, as one whose dirs another user owns: every removal
// there fails with EACCES, so that what the module does with a failed removal is seen.
function refusedRemovals(root: string): () => void {
  const { rm, rmdir } = fs
  const refusing = <A extends unknown[]>(remove: (...args: A) => void) => (...args: A) => {
    const [path, ...rest] = args
    if (!String(path).startsWith(root)) return remove(...args)
    const done = rest.at(-1) as (error: Error) => void
    queueMicrotask(() => done(Object.assign(new Error(`EACCES: permission denied, rm '${String(path)}'`), { code: 'EACCES' })))
  }
  fs.rm = refusing(rm as (...args: unknown[]) => void) as typeof fs.rm
  fs.rmdir = refusing(rmdir as (...args: unknown[]) => void) as typeof fs.rmdir
  syncBuiltinESMExports()
  return () => {
    Object.assign(fs, { rm, rmdir })
    syncBuiltinESMExports()
  }
}

// Each test's dirs go to a TMPDIR only it uses, so that what is left there is what the module left.
let base: string
let restoreEnv: () => void
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'temp-dirs-test-'))
  restoreEnv = setEnv({ TMPDIR: base })
})
afterEach(async () => {
  await settleTempDirs()
  restoreEnv()
  rmSync(base, { recursive: true, force: true })
})

// What is left in the OS temp dir, and the dirs in the process's own dir there (`pi-harness-XXXXXX/<name>`).
const left = (dir = base) => readdirSync(dir).sort()
const inOwn = () => left().flatMap((own) => readdirSync(join(base, own)).map((name) => join(own, name)))
const owned = (root: string) => root.slice(base.length + 1)

describe('temp dirs', () => {
  it('hands out a new empty dir each time, and none is left once released and settled', async () => {
    // Made here, made ahead and waited for, made ahead and known to exist: each a dir of its own.
    const taken = [await takeTempDir(PREFIX), takeTempDirSync(PREFIX), await takeTempDir(PREFIX), await takeTempDir(PREFIX)]
    await new Promise((resolve) => setTimeout(resolve, 50))
    taken.push(takeTempDirSync(PREFIX), await takeTempDir(PREFIX))
    expect(new Set(taken).size).toBe(6)
    for (const root of taken) {
      expect(dirname(dirname(root))).toBe(base)
      expect(basename(dirname(root))).toMatch(/^pi-harness-\w+$/)
      expect(readdirSync(root)).toEqual([])
    }
    expect(left()).toHaveLength(1)
    for (const root of taken) releaseTempDir(root)
    await settleTempDirs()
    expect(left()).toEqual([])
  })

  it('makes the next dirs ahead once a prefix is taken again, and settling removes those not taken', async () => {
    const first = await takeTempDir(PREFIX)
    // Taken once since the last settle: nothing is made ahead (a file's home is taken once per file).
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(inOwn()).toEqual([owned(first)])
    const second = await takeTempDir(PREFIX)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(inOwn()).toHaveLength(3)
    // Settling waits for the dirs being made ahead, then removes them; the taken ones (and the process's
    // dir holding them) stay until released.
    await settleTempDirs()
    expect(inOwn()).toEqual([owned(first), owned(second)].sort())
    // Settling starts the count again.
    const third = takeTempDirSync(PREFIX)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(inOwn()).toEqual([owned(first), owned(second), owned(third)].sort())
    for (const root of [first, second, third]) releaseTempDir(root)
    await settleTempDirs()
    expect(left()).toEqual([])
  })

  it('removes what was written inside a dir, however deep', async () => {
    const root = await takeTempDir(PREFIX)
    mkdirSync(join(root, '.pi', 'agent'), { recursive: true })
    writeFileSync(join(root, '.pi', 'agent', 'settings.json'), '{}')
    writeFileSync(join(root, 'notes.md'), 'a file beside the dir')
    releaseTempDir(root)
    await settleTempDirs()
    expect(existsSync(root)).toBe(false)
    expect(left()).toEqual([])
  })

  it('removes a symlink inside a dir, never what it points to', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'pi-probe-outside-'))
    try {
      writeFileSync(join(outside, 'keep.txt'), 'not the session\'s')
      const root = await takeTempDir(PREFIX)
      mkdirSync(join(root, 'links'))
      symlinkSync(outside, join(root, 'links', 'to-dir'))
      symlinkSync(join(outside, 'keep.txt'), join(root, 'to-file'))
      releaseTempDir(root)
      await settleTempDirs()
      expect(existsSync(root)).toBe(false)
      expect(readdirSync(outside)).toEqual(['keep.txt'])
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })

  it('makes the dirs of `within` in each dir, made here or ahead, and removes them whether or not anything was written there', async () => {
    const within = join('.pi', 'agent')
    const taken = [await takeTempDir(PREFIX, within), await takeTempDir(PREFIX, within)]
    await new Promise((resolve) => setTimeout(resolve, 50))
    taken.push(await takeTempDir(PREFIX, within), await takeTempDir(PREFIX, within))
    for (const root of taken) expect(readdirSync(join(root, within))).toEqual([])
    // One left as made; one with a file in the innermost dir; one with a file beside it; one with the dir gone.
    writeFileSync(join(taken[1]!, within, 'read-access.log'), 'read a.ts\n')
    writeFileSync(join(taken[2]!, '.pi', 'settings.json'), '{}')
    rmSync(join(taken[3]!, '.pi'), { recursive: true })
    for (const root of taken) releaseTempDir(root, undefined, within)
    await settleTempDirs()
    expect(left()).toEqual([])
  })

  it('never hands out a dir made ahead under a TMPDIR that has changed since', async () => {
    releaseTempDir(await takeTempDir(PREFIX))
    releaseTempDir(await takeTempDir(PREFIX))
    // Give the dirs made ahead time to be ready under the first TMPDIR.
    await new Promise((resolve) => setTimeout(resolve, 50))
    const other = mkdtempSync(join(tmpdir(), 'temp-dirs-other-'))
    process.env.TMPDIR = other
    try {
      const root = await takeTempDir(PREFIX)
      const rootSync = takeTempDirSync(PREFIX)
      expect([dirname(dirname(root)), dirname(dirname(rootSync))]).toEqual([other, other])
      releaseTempDir(root)
      releaseTempDir(rootSync)
      await settleTempDirs()
      expect(left(other)).toEqual([])
    } finally {
      process.env.TMPDIR = base
      rmSync(other, { recursive: true, force: true })
    }
  })

  it('leaves nothing behind when the process exits while dirs are being made ahead and removed', () => {
    // The built module, as a user's process runs it: it takes dirs, releases one and exits at once, before
    // the event loop turns, with dirs being made ahead and one being removed.
    const built = pathToFileURL(resolve(import.meta.dirname, '../dist/src/isolation/temp-dirs.js')).href
    const script = `
      const { takeTempDir, takeTempDirSync, releaseTempDir } = await import(${JSON.stringify(built)})
      const prefix = ${JSON.stringify(PREFIX)}
      const first = await takeTempDir(prefix)
      takeTempDirSync(prefix)
      await takeTempDir(prefix)
      releaseTempDir(first)
      process.exit(0)`
    // Enough runs to meet the race of an exit with a removal in flight (about one exit in three on Node 24).
    for (let run = 0; run < 20; run++) {
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, TMPDIR: base } })
      expect(left()).toEqual([])
    }
  })

  it('reports a dir that cannot be removed, whoever released it, and settles the rest', async () => {
    const [kept, owned, gone] = [await takeTempDir(PREFIX), await takeTempDir(PREFIX), await takeTempDir(PREFIX)]
    const restoreDisk = refusedRemovals(kept)
    try {
      // Released without an owner, as the dirs made ahead are.
      releaseTempDir(kept)
      releaseTempDir(gone)
      await expect(settleTempDirs()).rejects.toThrow(`could not remove a temp dir:\n  ${kept}: EACCES: permission denied`)
    } finally {
      restoreDisk()
    }
    expect(existsSync(gone)).toBe(false)
    releaseTempDir(kept)
    releaseTempDir(owned, () => 'its session')
    await settleTempDirs()
    expect(left()).toEqual([])
  })

  it('settles only once every removal has ended, however slow the disk', async () => {
    const taken = [await takeTempDir(PREFIX), await takeTempDir(PREFIX), await takeTempDir(PREFIX)]
    // Written in: one rmdir fails, and the recursive removal after it is what removes the dir.
    for (const root of taken.slice(1)) writeFileSync(join(root, 'notes.md'), 'written by the session')
    // The dirs made ahead exist, so that settling has them to remove.
    await expect.poll(() => inOwn().length, { timeout: 10_000 }).toBeGreaterThan(taken.length)
    const restoreDisk = slowRemovals(200)
    try {
      // The dirs made ahead are the only removals: they start inside the settle.
      await settleTempDirs()
      // Checked before the event loop turns: nothing removed after the settle returned can hide here.
      expect(inOwn()).toEqual(taken.map(owned).sort())
      for (const root of taken) releaseTempDir(root)
      await settleTempDirs()
      expect(left()).toEqual([])
    } finally {
      restoreDisk()
    }
  })
})
