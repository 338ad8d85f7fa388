// Which child processes the network guard refuses at the spawn, as a pure decision on the argv
// (test/network-children.test.ts starts them for real).
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { guardedEnvironment } from '../src/isolation/network-children.js'
import { guardNetwork } from '../src/isolation/network-guard.js'
import { refusedProgram, removeRefusedProgramsDirs } from '../src/isolation/network-programs.js'
import { startedPrograms } from '../src/isolation/started-programs.js'

/** The decision for the child `file` with `args` (Node's normalised argv), as the spawn takes it. */
const refused = (file: string, args: readonly string[], allowed: readonly string[]) => refusedProgram(startedPrograms(file, args), allowed)

describe('refusedProgram', () => {
  it("refuses a program allowPrograms does not name, even when it names another", () => {
    expect(refused('/usr/bin/nc', ['nc', 'example.com', '80'], ['ssh'])).toBe('nc')
    expect(refused('/usr/bin/ssh', ['ssh', 'example.com'], ['ssh'])).toBeUndefined()
  })

  it('refuses one named by its path, which no stand-in on PATH catches, wherever a command starts it', () => {
    expect(refused('/bin/sh', ['sh', '-c', 'cd /tmp && /usr/bin/nc example.com 80'], [])).toBe('/usr/bin/nc')
    expect(refused('/usr/bin/env', ['env', 'LANG=C', '/opt/tools/ssh', 'example.com'], [])).toBe('/opt/tools/ssh')
    expect(refused('/usr/bin/timeout', ['timeout', '5', 'busybox', 'nc', 'example.com', '80'], [])).toBe('busybox nc')
  })

  it('leaves to the stand-ins one run by name, and starts nothing from a word that is not a command', () => {
    expect(refused('/usr/bin/env', ['env', 'nc', 'example.com', '80'], [])).toBeUndefined()
    expect(refused('/bin/sh', ['sh', '-c', 'nc example.com 80'], [])).toBeUndefined()
    expect(refused('/bin/sh', ['sh', '-c', 'echo /usr/bin/nc; ls /usr/bin/ssh'], [])).toBeUndefined()
    expect(refused('/bin/sh', ['sh', '-c', '/usr/bin/ssh example.com'], ['ssh'])).toBeUndefined()
  })

  it("refuses a shell's /dev/tcp and /dev/udp", () => {
    expect(refused('/bin/bash', ['bash', '-c', 'echo hi > /dev/tcp/example.com/80'], [])).toBe('/dev/tcp')
    expect(refused('/bin/bash', ['bash', '-c', 'echo hi > /dev/udp/example.com/53'], [])).toBe('/dev/udp')
  })
})

describe('refusedProgramsDir', () => {
  // In a process of its own: this file holds the isolation until it ends, and the removal is at the last leave.
  it('removes the stand-ins when the last user leaves the isolation, not only at the process exit', () => {
    const script = `
      const { enterIsolation } = await import('./dist/src/isolation/isolation.js')
      const { refusedProgramsDir } = await import('./dist/src/isolation/network-programs.js')
      const { existsSync } = await import('node:fs')
      const { leave } = await enterIsolation()
      const dir = refusedProgramsDir([])
      const made = existsSync(dir + '/nc')
      leave()
      process.stdout.write(JSON.stringify({ made, after: existsSync(dir) }))
      process.kill(process.pid, 'SIGKILL') // as a pool ends a worker: no exit event
    `
    // The kill comes before the file home's removal in the background: the child's temp dir is removed here.
    const tmp = mkdtempSync(join(tmpdir(), 'stand-ins-isolation-'))
    try {
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', TMPDIR: tmp } })
      expect(JSON.parse(child.stdout), child.stderr).toEqual({ made: true, after: false })
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })

  it('removes the stand-ins when the last guard is released, as a test that guards its own body ends', () => {
    const release = guardNetwork()
    let standIns: string
    try {
      standIns = execFileSync('/bin/sh', ['-c', 'echo "$PATH"'], { encoding: 'utf8' }).split(':')[0]!
      expect(existsSync(join(standIns, 'nc'))).toBe(true)
    } finally {
      release()
    }
    expect(existsSync(standIns)).toBe(false)
  })

  // A guarded child that a pool or a test kills never removes what it made: it uses its parent's stand-ins.
  it("makes none for a guarded child's own children: they get the stand-ins its parent made", () => {
    const tmp = mkdtempSync(join(tmpdir(), 'stand-ins-child-'))
    const saved = process.env.TMPDIR
    process.env.TMPDIR = tmp
    try {
      // Allowing a program no other test allows: no dir of this process's is made for it yet.
      const inherited = 'PATH=/tmp/pi-refused-programs-Ab12Cd:/usr/bin'
      const env = guardedEnvironment([inherited], undefined, 'http://pi-child-1:refused@127.0.0.1:9', ['telnet'])
      expect(env).toContain(inherited)
      // Python's guard too, from the same dir, with no PYTHONPATH given or with one of the child's own.
      expect(env).toContain('PYTHONPATH=/tmp/pi-refused-programs-Ab12Cd/python')
      expect(guardedEnvironment([inherited, 'PYTHONPATH=/opt/lib'], undefined, 'http://pi-child-1:refused@127.0.0.1:9', ['telnet'])).toContain('PYTHONPATH=/tmp/pi-refused-programs-Ab12Cd/python:/opt/lib')
      expect(readdirSync(tmp)).toEqual([])
      // A child whose PATH has none gets them, made here.
      expect(guardedEnvironment(['PATH=/usr/bin'], undefined, 'http://pi-child-2:refused@127.0.0.1:9', ['telnet'])).toEqual(
        expect.arrayContaining([expect.stringMatching(new RegExp(`^PATH=${tmp}/pi-refused-programs-\\w+:/usr/bin$`)), expect.stringMatching(new RegExp(`^PYTHONPATH=${tmp}/pi-refused-programs-\\w+/python$`))]),
      )
    } finally {
      process.env.TMPDIR = saved
      removeRefusedProgramsDirs()
      rmSync(tmp, { recursive: true, force: true })
    }
  })
})
