// The isolation a worker started ahead enters before its file is known (environment/warm-entry.ts): what it
// imports next sees the file's home and the guarded network, and the file's own entry takes its place, so
// that the file's leave is the last, as in a worker started for the file.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/** Runs `body` in a Node process of its own (this file's worker holds an isolation already); returns what it wrote. */
function inProcess(body: string): { output: Record<string, unknown>; left: string[] } {
  const tmp = mkdtempSync(join(tmpdir(), 'isolation-ahead-'))
  try {
    const script = `
      // The floor first: a connection the guard let through is recorded here, never sent.
      const floor = await (await import('./test/support/network-floor.mjs')).layFloor()
      const { enterIsolation, enterIsolationAhead } = await import('./dist/src/isolation/isolation.js')
      const { settleTempDirs } = await import('./dist/src/isolation/temp-dirs.js')
      const os = await import('node:os')
      const net = await import('node:net')
      const { existsSync } = await import('node:fs')
      const realHome = process.env.HOME
      const guarded = () =>
        new Promise((resolve) => net.connect(80, '192.0.2.1').on('error', (error) => resolve(/disabled in tests/.test(error.message))).on('connect', () => resolve(false)))
      const out = {}
      ${body}
      await settleTempDirs()
      out.stopped = floor.stopped
      process.stdout.write(JSON.stringify(out))
      process.kill(process.pid, 'SIGKILL') // as a pool ends a worker: no exit event
    `
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', TMPDIR: tmp } })
    expect(child.stdout, child.stderr).not.toBe('')
    // What the process left in its temp dir: its own dir there, once emptied, stays until its exit hook.
    const left = readdirSync(tmp).flatMap((dir) => readdirSync(join(tmp, dir)))
    return { output: JSON.parse(child.stdout) as Record<string, unknown>, left }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

describe('enterIsolationAhead', () => {
  it('isolates at once; the first entry takes its place and its leave restores everything', () => {
    const { output, left } = inProcess(`
      await enterIsolationAhead()
      out.aheadHome = os.homedir() !== realHome && process.env.HOME === os.homedir()
      out.aheadGuarded = await guarded()
      const { isolation, leave } = await enterIsolation()
      out.sameHome = isolation.home === os.homedir()
      leave()
      out.restored = os.homedir() === realHome && process.env.HOME === realHome
      await settleTempDirs()
      out.homeRemoved = !existsSync(isolation.home)
    `)
    expect(output).toEqual({ aheadHome: true, aheadGuarded: true, sameHome: true, restored: true, homeRemoved: true, stopped: [] })
    expect(left).toEqual([])
  })

  it('does nothing where the isolation is entered already: the users who entered it leave it as before', () => {
    const { output, left } = inProcess(`
      const first = await enterIsolation()
      await enterIsolationAhead()
      const second = await enterIsolation()
      out.sameHome = first.isolation.home === second.isolation.home
      second.leave()
      out.stillIsolated = os.homedir() === first.isolation.home
      first.leave()
      out.restored = os.homedir() === realHome
    `)
    expect(output).toEqual({ sameHome: true, stillIsolated: true, restored: true, stopped: [] })
    expect(left).toEqual([])
  })
})
