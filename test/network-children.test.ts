// Programs other than Node that an extension starts: each way of node:child_process and pi.exec's bypass.
// A program that honours the proxy variables asks the harness's loopback proxy, which refuses, and the test
// fails naming the program, the host, the test and the extension; a program that would not ask it (ssh, nc)
// is refused. The programs here are stand-ins on PATH (test/support/fake-network-program.mjs) that record
// their argv and proxy and never connect beyond loopback; the floor beneath the guard records what this
// process would send. Nothing leaves the machine, whatever the guard does.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { execFileSync, execSync, spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from '../environment/index.js'
import { guardNetwork } from '../src/isolation/network-guard.js'
import { layFloor, type Floor } from './support/network-floor.mjs'

const EXTENSION = './test/fixtures/network-children/shell-out.ts'
const FAKE = new URL('./support/fake-network-program.mjs', import.meta.url).pathname
const PROXY = /^http:\/\/pi-child-\d+:refused@127\.0\.0\.1:\d+$/

let floor: Floor
let root: string
let bin: string
let log: string
let t: TestSession | undefined
const saved = { PATH: process.env.PATH, FAKE_PROGRAM_LOG: process.env.FAKE_PROGRAM_LOG }

beforeAll(async () => {
  floor = await layFloor()
  root = mkdtempSync(join(tmpdir(), 'pi-fake-programs-'))
  bin = join(root, 'bin')
  mkdirSync(bin)
  log = join(root, 'calls.jsonl')
  writeFileSync(log, '')
  // Every program a test names, so that a regressed guard would run a stand-in, never the real one.
  for (const program of ['curl', 'wget', 'nc', 'ssh']) {
    writeFileSync(join(bin, program), `#!/bin/sh\nexec '${process.execPath}' '${FAKE}' ${program} "$@"\n`)
    chmodSync(join(bin, program), 0o755)
  }
  process.env.PATH = `${bin}:${process.env.PATH}`
  process.env.FAKE_PROGRAM_LOG = log
})

afterAll(() => {
  Object.assign(process.env, saved)
  rmSync(root, { recursive: true, force: true })
  floor.restore()
})

afterEach(async () => {
  await t?.dispose()
  t = undefined
  writeFileSync(log, '')
  expect(floor.stopped.splice(0)).toEqual([])
})

const run = (way: string, program: string, args: string[]) => when(`run ${program}`, [calls('run', { way, program, args }), says('done')])
const recorded = () =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { program: string; args: string[]; proxy: string | null; noProxy: string | null })
const output = () => t!.events.toolResultsFor('run')[0]!.text

describe('a program that asks the proxy (curl), started', () => {
  const url = 'https://example.com/x'
  it.each([
    ['exec', '/bin/sh -c "curl -sS https://example.com/x"'],
    ['execSync', '/bin/sh -c "curl -sS https://example.com/x 2>&1 || true"'],
    ['spawn', 'curl -sS https://example.com/x'],
    ['spawnSync', 'curl -sS https://example.com/x'],
    ['execFile', 'curl -sS https://example.com/x'],
    ['shell -c', 'sh -c "curl -sS https://example.com/x"'],
  ])('by %s: the proxy refuses, and the test fails naming the host, the program, the child, the extension and the test', async (way, child) => {
    t = await createTestSession({ extensions: [EXTENSION] })
    const failure = t.run(run(way, 'curl', ['-sS', url])).then(
      () => 'passed',
      (error: Error) => error.message,
    )
    expect(await failure).toBe(
      `Network access is disabled in tests: example.com:443, asked of the proxy that child processes get by curl/1.0 in the child process \`${child}\`; ` +
        `the proxy refused it; started by ${process.cwd()}/test/fixtures/network-children/shell-out.ts in session 1 of test "${expect.getState().currentTestName}" (extensions: ${EXTENSION}). ` +
        'A child process reaches no network in tests: answer the program with pi.exec and an exec rule, or mock node:child_process.',
    )
    expect(output()).toContain('HTTP/1.1 403 Forbidden')
    expect(recorded()).toEqual([{ program: 'curl', args: ['-sS', url], proxy: expect.stringMatching(PROXY), noProxy: 'localhost,127.0.0.1,::1' }])
  })

  it('by exec, not awaited: a request after the turn ended fails the test all the same', async () => {
    t = await createTestSession({ extensions: [EXTENSION] })
    await t.run(run('exec, not awaited', 'curl', ['-sS', url]))
    const problem = () => {
      try {
        t!.verify()
        return 'none yet'
      } catch (error) {
        return (error as Error).message
      }
    }
    await expect.poll(problem, { timeout: 60_000 }).toMatch(/^Network access is disabled in tests: example\.com:443, asked of the proxy that child processes get by curl\/1\.0 in the child process `\/bin\/sh -c "curl -sS https:\/\/example\.com\/x"`; the proxy refused it; started by .*shell-out\.ts in session 1 of test/)
  })

  it('by fork: a Node module that honours the proxy variables gets them too', async () => {
    t = await createTestSession({ extensions: [EXTENSION] })
    await expect(t.run(run('fork', FAKE, ['wget', 'https://api.example.com/v1']))).rejects.toThrow(
      'Network access is disabled in tests: api.example.com:443, asked of the proxy that child processes get by wget/1.0 in the child process',
    )
    expect(recorded()).toEqual([{ program: 'wget', args: ['https://api.example.com/v1'], proxy: expect.stringMatching(PROXY), noProxy: 'localhost,127.0.0.1,::1' }])
  })

  it("by pi.exec with unhandled: 'bypass', which runs it for real: the same rule", async () => {
    t = await createTestSession({ extensions: [EXTENSION], unhandled: 'bypass' })
    await expect(t.run(run('pi.exec', 'curl', [url]))).rejects.toThrow(
      'Network access is disabled in tests: example.com:443, asked of the proxy that child processes get by curl/1.0 in the child process `curl https://example.com/x`; the proxy refused it; started by',
    )
    expect(output()).toContain('HTTP/1.1 403 Forbidden')
  })
})

describe('a program that reaches the network without a proxy (nc, ssh)', () => {
  it.each(['exec', 'execSync', 'spawn', 'spawnSync', 'execFile', 'execFileSync', 'shell -c', 'pi.exec'])('started by %s: is refused, named, and never runs', async (way) => {
    t = await createTestSession({ extensions: [EXTENSION], unhandled: 'bypass' })
    const error = await t.run(run(way, 'nc', ['example.com', '80'])).then(
      () => undefined,
      (error: Error) => error,
    )
    // Started directly it is refused at the spawn; a shell finds the guard's stand-in first on PATH.
    const shell = ['exec', 'execSync', 'shell -c'].includes(way)
    expect(error?.message).toMatch(
      shell
        ? /^Network access is disabled in tests: nc, which reaches the network without a proxy, run as `nc example\.com 80` by the child process `.*sh -c "nc example\.com 80.*"`; it was not run; started by .*shell-out\.ts in session 1 of test/
        : /^Network access is disabled in tests: nc, which reaches the network without a proxy, in the child process `nc example\.com 80`; it was not started; started by .*shell-out\.ts in session 1 of test/,
    )
    expect(recorded()).toEqual([])
  })

  it('named by its path in a shell command or after env, as a busybox applet, or as bash /dev/tcp: refused at the spawn', async () => {
    t = await createTestSession({ extensions: [EXTENSION] })
    await expect(t.run(run('exec', `${bin}/ssh`, ['git@example.com']))).rejects.toThrow(
      `Network access is disabled in tests: ${bin}/ssh, which reaches the network without a proxy, in the child process \`/bin/sh -c "${bin}/ssh git@example.com"\`; it was not started`,
    )
    await t.dispose()
    t = await createTestSession({ extensions: [EXTENSION] })
    await t.dispose()
    t = await createTestSession({ extensions: [EXTENSION] })
    await expect(t.run(run('spawnSync', 'busybox', ['nc', '127.0.0.1', '9']))).rejects.toThrow('Network access is disabled in tests: busybox nc, which reaches the network without a proxy')
    await t.dispose()
    t = await createTestSession({ extensions: [EXTENSION] })
    await expect(t.run(run('spawnSync', 'env', ['LANG=C', `${bin}/nc`, '127.0.0.1', '9']))).rejects.toThrow(
      `Network access is disabled in tests: ${bin}/nc, which reaches the network without a proxy, in the child process \`env LANG=C ${bin}/nc 127.0.0.1 9\`; it was not started`,
    )
    await t.dispose()
    t = await createTestSession({ extensions: [EXTENSION] })
    // On loopback: a regressed guard would let bash connect to 127.0.0.1:9 and no further.
    await expect(t.run(run('spawn', 'bash', ['-c', 'echo hi > /dev/tcp/127.0.0.1/9']))).rejects.toThrow('Network access is disabled in tests: /dev/tcp, which reaches the network without a proxy')
    expect(recorded()).toEqual([])
  })

  it('refused while the session starts (a session_start handler): the message names the test all the same', async () => {
    t = await createTestSession({ extensions: [(pi) => pi.on('session_start', () => void spawnSync('ssh', ['deploy@example.com']))] })
    expect(() => t!.verify()).toThrow(
      `Network access is disabled in tests: ssh, which reaches the network without a proxy, in the child process \`ssh deploy@example.com\`; it was not started; started by <inline:1> in session 1 of test "${expect.getState().currentTestName}" (extensions: <inline:1>).`,
    )
    expect(recorded()).toEqual([])
  })

  it('allowPrograms lets a session start one, for a program that stays on loopback', async () => {
    t = await createTestSession({ extensions: [EXTENSION], allowPrograms: ['nc'] })
    await t.run(run('spawn', 'nc', ['127.0.0.1', '8080']), run('exec', 'nc', ['-z', 'localhost', '8080']))
    expect(recorded().map((call) => call.args)).toEqual([
      ['127.0.0.1', '8080'],
      ['-z', 'localhost', '8080'],
    ])
  })

  it('allowPrograms names only programs the guard refuses', async () => {
    await expect(createTestSession({ allowPrograms: ['curl'] })).rejects.toThrow(/option "allowPrograms\[0\]" must be one of the programs the network guard refuses \(ssh, .*\), got "curl"/)
  })
})

describe("a client told not to use the proxy (curl --noproxy '*')", () => {
  it.each(['spawnSync', 'execFile', 'exec', 'shell -c', 'pi.exec'])('started by %s: is refused at the spawn, named, and never runs', async (way) => {
    t = await createTestSession({ extensions: [EXTENSION], unhandled: 'bypass' })
    const shell = ['exec', 'shell -c'].includes(way)
    const child = shell ? `${way === 'exec' ? '/bin/sh' : 'sh'} -c "curl -sS --noproxy * https://example.com/x"` : 'curl -sS --noproxy "*" https://example.com/x'
    await expect(t.run(run(way, 'curl', ['-sS', '--noproxy', shell ? "'*'" : '*', 'https://example.com/x']))).rejects.toThrow(
      `Network access is disabled in tests: curl --noproxy *, which tells the program not to use the proxy that child processes get, in the child process \`${shell ? child.replace('*', "'*'") : child}\`; it was not started; started by`,
    )
    expect(recorded()).toEqual([])
  })

  it('is refused when a command that runs others starts it (env, timeout)', async () => {
    t = await createTestSession({ extensions: [EXTENSION] })
    await expect(t.run(run('spawnSync', 'env', ['LANG=C', 'timeout', '5', 'curl', '-sS', '--noproxy', '*', 'https://example.com/x']))).rejects.toThrow(
      'Network access is disabled in tests: curl --noproxy *, which tells the program not to use the proxy that child processes get, in the child process `env LANG=C timeout 5 curl -sS --noproxy "*" https://example.com/x`; it was not started',
    )
    expect(recorded()).toEqual([])
  })

  it('is started as before where only loopback goes around the proxy, and meets the proxy for any other host', async () => {
    t = await createTestSession({ extensions: [EXTENSION] })
    await expect(t.run(run('spawnSync', 'curl', ['-sS', '--noproxy', 'localhost,127.0.0.1', 'https://example.com/x']))).rejects.toThrow(
      'Network access is disabled in tests: example.com:443, asked of the proxy that child processes get by curl/1.0 in the child process `curl -sS --noproxy localhost,127.0.0.1 https://example.com/x`; the proxy refused it',
    )
    expect(recorded()).toEqual([{ program: 'curl', args: ['-sS', '--noproxy', 'localhost,127.0.0.1', 'https://example.com/x'], proxy: expect.stringMatching(PROXY), noProxy: 'localhost,127.0.0.1,::1' }])
  })
})

describe('local programs', () => {
  it('run as before, with the proxy variables and the stand-ins first on PATH', async () => {
    t = await createTestSession({ extensions: [EXTENSION], files: { 'a.txt': 'a' } })
    await t.run(
      run('execSync', 'sh', ['-c', "'echo $https_proxy; echo $PATH; git --version'"]),
      run('spawnSync', 'ls', [t.cwd]),
    )
    const [proxyLine, pathLine, gitLine] = t.events.toolResultsFor('run')[0]!.text.split('\n')
    expect(proxyLine).toMatch(PROXY)
    expect(pathLine).toMatch(new RegExp(`^${tmpdir()}/pi-refused-programs-\\w+:${bin}:`))
    expect(gitLine).toMatch(/^git version /)
    expect(t.events.toolResultsFor('run')[1]!.text).toBe('a.txt\n')
  })
})

describe('a child with network variables of its own', () => {
  it("gets the refusing proxy in place of the user's own, so that it is refused and reported all the same", () => {
    const blocked: string[] = []
    const release = guardNetwork((target) => blocked.push(target))
    try {
      // A proxy of the user's: loopback here, so that nothing leaves the machine whatever the guard does.
      const userProxy = 'http://127.0.0.1:9'
      const env = { ...process.env, http_proxy: userProxy, https_proxy: userProxy, HTTPS_PROXY: userProxy }
      const { stdout } = spawnSync('curl', ['-sS', 'https://example.com/x'], { env, encoding: 'utf8' })
      expect(stdout).toContain('HTTP/1.1 403 Forbidden')
      expect(recorded()).toEqual([{ program: 'curl', args: ['-sS', 'https://example.com/x'], proxy: expect.stringMatching(PROXY), noProxy: 'localhost,127.0.0.1,::1' }])
      expect(blocked).toEqual(['example.com:443, asked of the proxy that child processes get by curl/1.0 in the child process `curl -sS https://example.com/x`; the proxy refused it'])
    } finally {
      release()
    }
  })

  // In a process of its own, guarded by the built guard: one loaded from TypeScript cannot be preloaded.
  it('is a Node whose own NODE_OPTIONS are kept, and the guard is preloaded beside them', () => {
    const script = `
      import('./dist/src/isolation/network-guard.js').then(({ guardNetwork }) => {
        guardNetwork(() => {})
        const probe = 'console.log(JSON.stringify([process.env.NODE_OPTIONS, process.noDeprecation === true]))'
        const env = { ...process.env, NODE_OPTIONS: '--no-deprecation' }
        process.stdout.write(require('node:child_process').execFileSync(process.execPath, ['-e', probe], { env, encoding: 'utf8' }))
      })
    `
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })
    expect(child.stderr).toBe('')
    const [options, noDeprecation] = JSON.parse(child.stdout) as [string, boolean]
    expect(noDeprecation).toBe(true)
    expect(options).toMatch(/^--no-deprecation --import=data:text\/javascript,.*guardNetwork/)
  })
})

describe('outside a session (the test body)', () => {
  it('the same rules; a request is refused by the time spawnSync returns, and an nc is refused at once', () => {
    const blocked: string[] = []
    const release = guardNetwork((target) => blocked.push(target))
    try {
      expect(execSync('curl -sS http://example.com:8080/ 2>&1 || true', { encoding: 'utf8' })).toContain('HTTP/1.1 403 Forbidden')
      expect(blocked).toEqual(['example.com:8080, asked of the proxy that child processes get by curl/1.0 in the child process `/bin/sh -c "curl -sS http://example.com:8080/ 2>&1 || true"`; the proxy refused it'])
      expect(() => execFileSync('nc', ['example.com', '80'])).toThrow('Network access is disabled in tests: nc, which reaches the network without a proxy, in the child process `nc example.com 80`; it was not started')
    } finally {
      release()
    }
  })
})
