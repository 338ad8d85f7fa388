// The temp dirs sessions live in: made ahead and removed in the background, and all gone once settled.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { setEnv } from '../src/isolation/isolation.js'
import { releaseTempDir, settleTempDirs, takeTempDir, takeTempDirSync } from '../src/isolation/temp-dirs.js'

const KIND = { prefix: 'pi-probe-', subdirs: ['cwd', 'home'] }

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

const left = (dir = base) => readdirSync(dir).sort()

describe('temp dirs', () => {
  it('hands out a new dir with its subdirs each time, and none is left once released and settled', async () => {
    // Made here, made ahead and waited for, made ahead and known to exist: each a dir of its own.
    const taken = [await takeTempDir(KIND), takeTempDirSync(KIND), await takeTempDir(KIND), await takeTempDir(KIND)]
    await new Promise((resolve) => setTimeout(resolve, 50))
    taken.push(takeTempDirSync(KIND), await takeTempDir(KIND))
    expect(new Set(taken).size).toBe(6)
    for (const root of taken) {
      expect(dirname(root)).toBe(base)
      expect(readdirSync(root).sort()).toEqual(['cwd', 'home'])
    }
    for (const root of taken) releaseTempDir(root, KIND)
    await settleTempDirs()
    expect(left()).toEqual([])
  })

  it('makes the next dirs ahead once a kind is taken again, and settling removes those not taken', async () => {
    const name = (root: string) => root.slice(base.length + 1)
    const first = await takeTempDir(KIND)
    // Taken once since the last settle: nothing is made ahead (a file's home is taken once per file).
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(left()).toEqual([name(first)])
    const second = await takeTempDir(KIND)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(left()).toHaveLength(3)
    // Settling waits for the dirs being made ahead, then removes them; the taken ones stay until released.
    await settleTempDirs()
    expect(left()).toEqual([name(first), name(second)].sort())
    // Settling starts the count again.
    const third = takeTempDirSync(KIND)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(left()).toEqual([name(first), name(second), name(third)].sort())
    for (const root of [first, second, third]) releaseTempDir(root, KIND)
    await settleTempDirs()
    expect(left()).toEqual([])
  })

  it('removes what was written inside a dir, however deep', async () => {
    const root = await takeTempDir(KIND)
    writeFileSync(join(root, 'home', 'settings.json'), '{}')
    rmSync(join(root, 'cwd'), { recursive: true })
    writeFileSync(join(root, 'cwd'), 'a file where a dir was')
    releaseTempDir(root, KIND)
    await settleTempDirs()
    expect(existsSync(root)).toBe(false)
    expect(left()).toEqual([])
  })

  it('never hands out a dir made ahead under a TMPDIR that has changed since', async () => {
    releaseTempDir(await takeTempDir(KIND), KIND)
    releaseTempDir(await takeTempDir(KIND), KIND)
    // Give the dirs made ahead time to be ready under the first TMPDIR.
    await new Promise((resolve) => setTimeout(resolve, 50))
    const other = mkdtempSync(join(tmpdir(), 'temp-dirs-other-'))
    process.env.TMPDIR = other
    try {
      const root = await takeTempDir(KIND)
      const rootSync = takeTempDirSync(KIND)
      expect([dirname(root), dirname(rootSync)]).toEqual([other, other])
      releaseTempDir(root, KIND)
      releaseTempDir(rootSync, KIND)
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
      const kind = ${JSON.stringify(KIND)}
      const first = await takeTempDir(kind)
      takeTempDirSync(kind)
      await takeTempDir(kind)
      releaseTempDir(first, kind)
      process.exit(0)`
    // Enough runs to meet the race of an exit with a removal in flight (about one exit in three on Node 24).
    for (let run = 0; run < 20; run++) {
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, TMPDIR: base } })
      expect(left()).toEqual([])
    }
  })
})
