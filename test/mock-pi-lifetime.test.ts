// createMockPi's responder socket and lifetime: a socket that fits whatever TMPDIR is, errors kept for
// dispose(), a responder that never answers named as such, and nothing left when a test forgets dispose().
import { execFile, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { Server } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { createMockPi, type MockPi } from '../environment/index.js'

/** Runs the fake `pi` as a child that does not block the test's process. */
function callPi(mock: MockPi, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(join(mock.dir, 'pi'), args, { encoding: 'utf8' }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })),
  )
}

describe("createMockPi's responder socket", () => {
  const saved = process.env.TMPDIR
  const longTmp = join(mkdtempSync(join(tmpdir(), 'pi-long-')), 'a-temp-dir-name-long-enough-that-a-socket-path-inside-it-would-pass-the-104-bytes-limit')
  mkdirSync(longTmp, { recursive: true })
  afterEach(() => {
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
    vi.restoreAllMocks()
  })
  afterAll(() => rmSync(join(longTmp, '..'), { recursive: true, force: true }))

  it('answers each call from its own responder under a TMPDIR too long for a socket path', async () => {
    process.env.TMPDIR = longTmp
    const first = createMockPi().onCall(() => ({ output: 'first' }))
    const second = createMockPi().onCall(() => ({ output: 'second' }))
    expect(first.dir.startsWith(longTmp)).toBe(true)
    expect(await Promise.all([callPi(first, ['-p', 'a']), callPi(second, ['-p', 'b'])])).toEqual([
      { code: 0, stdout: 'first', stderr: '' },
      { code: 0, stdout: 'second', stderr: '' },
    ])
    first.dispose()
    second.dispose()
  })

  it("keeps its socket's errors for dispose() instead of letting them crash the process", async () => {
    vi.spyOn(Server.prototype, 'listen').mockImplementationOnce(function (this: Server) {
      process.nextTick(() => this.emit('error', Object.assign(new Error('listen EADDRINUSE: address already in use'), { code: 'EADDRINUSE' })))
      return this
    })
    const mock = createMockPi().onCall(() => ({ output: 'never' }))
    const result = await callPi(mock, [])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^mock pi: cannot reach the responder: /)
    expect(() => mock.dispose()).toThrow(/^mockPi: the responder's socket ".+" failed: listen EADDRINUSE: address already in use$/)
  })
})

describe('a responder that does not answer', () => {
  it('is named as never answering, not as a blocked test process', async () => {
    const mock = createMockPi({ responderWaitMs: 1000 }).onCall(() => new Promise(() => {}))
    const result = await callPi(mock, ['-p', 'hang'])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe('mock pi: the responder for call 1 was asked and did not answer within 1 s: does it return a promise that never resolves?\n')
    expect(() => mock.dispose()).toThrow('mockPi: the responder for call 1 (pi -p hang) never answered: does it return a promise that never resolves?')
  })

  it('names a test process that is blocked (spawnSync) as the cause', () => {
    const mock = createMockPi({ responderWaitMs: 1000 }).onCall(() => ({ output: 'late' }))
    const result = spawnSync(join(mock.dir, 'pi'), [], { encoding: 'utf8' })
    expect(result.stderr).toMatch(/^mock pi: the test process did not take call 1 within 1 s: is it blocked \(spawnSync, execSync\)\?/)
    mock.dispose()
  })

  it('refuses a wait that is not a positive number', () => {
    expect(() => createMockPi({ responderWaitMs: 0 })).toThrow('createMockPi: option "responderWaitMs" must be a positive number of milliseconds, got 0 (a number)')
  })
})

describe('a mock pi its test never disposed', () => {
  const path = process.env.PATH
  let dirs: string[] = []

  it('is installed and left as it is by its test', () => {
    const mock = createMockPi()
    mock.install()
    dirs.push(mock.dir)
    expect(process.env.PATH!.split(delimiter)[0]).toBe(mock.dir)
  })

  it.fails('is installed by a test that fails before dispose()', () => {
    const mock = createMockPi()
    mock.install()
    dirs.push(mock.dir)
    throw new Error('failed before dispose()')
  })

  it('is gone when the next test starts: PATH restored, folder removed', () => {
    expect(process.env.PATH).toBe(path)
    expect(dirs.map(existsSync)).toEqual([false, false])
    dirs = []
  })
})
