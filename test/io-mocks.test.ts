import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { Type } from 'typebox'
import { afterEach, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, when, type TestSession } from '../src/index.js'
import { KILLED_CODE } from './support/pi-line.js'

/** Tools that shell out with pi.exec and call an HTTP API with fetch. */
function worker(pi: ExtensionAPI) {
  pi.registerTool({
    name: 'git_log',
    label: 'git log',
    description: 'Shows recent commits',
    parameters: Type.Object({ count: Type.Number() }),
    async execute(_id, params) {
      const r = await pi.exec('git', ['log', '--oneline', `-${params.count}`])
      return { content: [{ type: 'text', text: r.code === 0 && !r.killed ? r.stdout : `git failed (${r.code}${r.killed ? ', killed' : ''})` }], details: r }
    },
  })
  pi.registerTool({
    name: 'weather',
    label: 'Weather',
    description: 'Looks up the weather',
    parameters: Type.Object({ city: Type.String() }),
    async execute(_id, params) {
      const response = await fetch(`https://api.weather.test/v1/now?city=${params.city}`, { headers: { authorization: 'Bearer k' } })
      const body = (await response.json()) as { summary: string }
      return { content: [{ type: 'text', text: `${response.status}: ${body.summary}` }], details: {} }
    },
  })
}

describe('exec and HTTP mocks', () => {
  let t: TestSession | undefined
  afterEach(async () => {
    await t?.dispose()
    t = undefined
  })

  it('answers pi.exec by cmd_exact with args_contain, first match wins, with times and killed', async () => {
    t = await createTestSession({
      extensions: [worker],
      mocks: {
        exec: {
          rules: [
            { match: { cmd_exact: 'git', args_contain: ['-1'] }, result: { stdout: 'abc123 fix\n' }, times: 1 },
            { match: { cmd_prefix: 'git log' }, result: { killed: true } },
          ],
        },
      },
    })
    await t.run(when('log', [calls('git_log', { count: 1 }), calls('git_log', { count: 1 }), says('ok')]))
    expect(t.events.toolResultsFor('git_log').map((r) => r.text)).toEqual(['abc123 fix\n', `git failed (${KILLED_CODE}, killed)`])
    expect(t.events.exec.map((c) => c.answeredBy)).toEqual(['exec.rules[0]', 'exec.rules[1]'])
    expect(t).toHaveExecuted('git', ['log', '--oneline', '-1'])
    expect(t).toHaveExecuted(/^git log/)
    expect(t).not.toHaveExecuted('npm')
    expect(t).toHaveUsedAllMocks()
  })

  it('answers fetch by url_prefix and headers, with body_json', async () => {
    t = await createTestSession({
      extensions: [worker],
      mocks: {
        http: {
          rules: [
            { match: { method: 'GET', url_prefix: 'https://api.weather.test/v1/', headers: { Authorization: 'Bearer k' } }, response: { status: 200, body_json: { summary: 'sunny' } } },
          ],
        },
      },
    })
    await t.run(when('weather', [calls('weather', { city: 'Oslo' }), says('sunny')]))
    expect(t).toHaveToolResult('weather', { text: '200: sunny' })
    expect(t).toHaveFetched('/v1/now?city=Oslo', { method: 'get', headers: { Authorization: 'Bearer k' } })
    expect(t).not.toHaveFetched(/example\.com/)
  })

  it('fails the run when no rule answers, naming the call and the rules tried', async () => {
    t = await createTestSession({
      extensions: [worker],
      mocks: { exec: { rules: [{ match: { cmd_exact: 'npm' }, result: {} }] } },
    })
    await expect(t.run(when('log', [calls('git_log', { count: 3 }), says('?')]))).rejects.toThrow(
      'Unhandled exec: git log --oneline -3 (no rule matched and exec.default_result is not set)\n' +
        '  exec.rules[0] did not match: neither the command nor the command line is "npm"',
    )
  })

  it('fails a request no rule answers, even inside a tool that catches it', async () => {
    const swallow = (pi: ExtensionAPI) =>
      pi.on('session_start', async () => {
        await fetch('https://api.weather.test/v1/now').catch(() => undefined)
      })
    await expect(createTestSession({ extensions: [swallow] }).then((session) => ((t = session), session.verify()))).rejects.toThrow(
      'Unhandled request: GET https://api.weather.test/v1/now (no rule matched and http.default_response is not set)\n  (http.rules is empty)',
    )
  })

  it('lists rules whose times were not used up', async () => {
    t = await createTestSession({
      extensions: [worker],
      mocks: { exec: { rules: [{ match: { cmd_prefix: 'git' }, result: { stdout: 'x' }, times: 2 }] } },
    })
    await t.run(when('log', [calls('git_log', { count: 1 }), says('ok')]))
    expect(t.pendingMocks().map((p) => p.line)).toEqual(['exec.rules[0] (cmd_prefix "git") answered 1 of 2 times'])
    expect(() => expect(t).toHaveUsedAllMocks()).toThrow('Not used up:\n  1. exec.rules[0] (cmd_prefix "git") answered 1 of 2 times')
  })

  it("warns and answers as Pi does for a command that cannot start, with unhandled: 'warn'", async () => {
    t = await createTestSession({ extensions: [worker], unhandled: 'warn' })
    await t.run(when('log', [calls('git_log', { count: 1 }), says('ok')]))
    expect(t).toHaveToolResult('git_log', { text: 'git failed (1)' })
  })

  it("runs exec for real with unhandled: 'bypass', but never lets HTTP out", async () => {
    t = await createTestSession({ extensions: [worker], unhandled: 'bypass', propagateErrors: false })
    await t.run(when('both', [calls('git_log', { count: 1 }), calls('weather', { city: 'Oslo' }), says('ok')]))
    expect(t.events.exec[0]!.answeredBy).toBe('real')
    expect(t.events.http[0]).toMatchObject({ answeredBy: 'refused', url: 'https://api.weather.test/v1/now?city=Oslo' })
    expect(t).toHaveToolResult('weather', { isError: true, text: 'fetch failed' })
  })

  it("answers a killed command in the shape the running Pi's own exec gives", async () => {
    // pi.exec's result changed within Pi 1.x (`truncated` since 1.5, 128 + signal since 1.6): the mock follows Pi.
    const napper = (pi: ExtensionAPI) =>
      pi.registerTool({
        name: 'nap',
        label: 'Nap',
        description: 'Sleeps, but not for long',
        parameters: Type.Object({}),
        execute: async () => ({ content: [{ type: 'text', text: 'woke' }], details: await pi.exec('sleep', ['5'], { timeout: 50 }) }),
      })
    const napResult = async (options: Parameters<typeof createTestSession>[0]) => {
      t = await createTestSession({ extensions: [napper], ...options })
      await t.run(when('nap', [calls('nap', {}), says('ok')]))
      const details = t.events.toolResultsFor('nap')[0]!.details
      await t.dispose()
      return details
    }
    const real = await napResult({ unhandled: 'bypass' })
    const mocked = await napResult({ mocks: { exec: { rules: [{ match: { cmd_exact: 'sleep' }, result: { killed: true } }] } } })
    expect(real).toMatchObject({ killed: true, code: KILLED_CODE })
    expect(mocked).toEqual(real)
  })

  it("kills a bypassed command still running when the session ends, with what it started", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-bypass-'))
    // A command left running on purpose (fire and forget), which starts a process of its own.
    const starter = (pi: ExtensionAPI) =>
      pi.registerCommand('watch', { handler: async () => void pi.exec('sh', ['-c', `sleep 30 & echo $! > "${dir}/child"; echo $$ > "${dir}/leader"; wait`]) })
    t = await createTestSession({ extensions: [starter], unhandled: 'bypass' })
    await t.command('watch')
    const pidIn = async (file: string) => {
      while (!existsSync(join(dir, file)) || readFileSync(join(dir, file), 'utf8') === '') await delay(10)
      return Number(readFileSync(join(dir, file), 'utf8'))
    }
    const pids = [await pidIn('leader'), await pidIn('child')]
    expect(pids.map(isRunning)).toEqual([true, true])
    await t.dispose()
    // Both have ended (the grandchild is reaped by init, in its own time).
    for (let tries = 0; tries < 200 && pids.some(isRunning); tries++) await delay(10)
    expect(pids.map(isRunning)).toEqual([false, false])
    rmSync(dir, { recursive: true, force: true })
  })
})

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z')
  } catch {
    return false
  }
}

