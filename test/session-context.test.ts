// Sessions alive at once, or one after the other in a file, do not reach each other: each session's
// HTTP requests are answered by its own rules and recorded in its own records, and each has its own HOME.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, test, when } from '../environment/index.js'
import { enterIsolation, type Isolation } from '../src/isolation/isolation.js'
import { settleTempDirs } from '../src/isolation/temp-dirs.js'

// Held for the whole file, as the `pi` environment holds it: the network stays cut and HTTP intercepted
// between sessions, and code outside sessions has the file's home.
let file: { isolation: Isolation; leave: () => void }
beforeAll(async () => void (file = await enterIsolation()))
afterAll(() => file.leave())

const STATUS_URL = 'https://api.status.test/v1/status'
const statusRule = (body: string) => ({ http: { rules: [{ match: { url_exact: STATUS_URL }, response: { status: 200, body } }] } })

/** A tool and a command that fetch the same URL; the tool waits first, so two sessions' requests interleave. */
function statusChecker(pi: ExtensionAPI) {
  const fetchStatus = async () => (await fetch(STATUS_URL)).text()
  pi.registerTool({
    name: 'status',
    label: 'Status',
    description: 'Fetches the service status',
    parameters: Type.Object({ wait: Type.Number() }),
    async execute(_id, { wait }) {
      await delay(wait)
      return { content: [{ type: 'text', text: await fetchStatus() }], details: {} }
    },
  })
  pi.registerCommand('status', { handler: async (_args, ctx) => ctx.ui.notify(await fetchStatus()) })
}

/** What a fetch of the status URL gets, from wherever it is called. */
async function fetchStatusOutcome(): Promise<string> {
  try {
    return `answered: ${await (await fetch(STATUS_URL)).text()}`
  } catch (error) {
    return `failed: ${String((error as Error & { cause?: Error }).cause?.message ?? error)}`
  }
}

describe('HTTP rules belong to their session', () => {
  it('two sessions alive at once: each request is answered by its own session rules and recorded there', async () => {
    const a = await createTestSession({ extensions: [statusChecker], mocks: statusRule('from a') })
    const b = await createTestSession({ extensions: [statusChecker], mocks: statusRule('from b') })
    // a asks first and gets its answer last: whichever session is newest or busiest, each gets its own.
    await Promise.all([
      a.run(when('check', [calls('status', { wait: 40 }), says('checked a')])),
      b.run(when('check', [calls('status', { wait: 0 }), says('checked b')])),
    ])
    await a.command('status')
    expect(a.events.toolResultsFor('status').map((r) => r.text)).toEqual(['from a'])
    expect(b.events.toolResultsFor('status').map((r) => r.text)).toEqual(['from b'])
    expect(a.events.ui.filter((call) => call.method === 'notify').map((call) => call.args[0])).toEqual(['from a'])
    expect(a.events.http.map((call) => [call.url, call.status, call.answeredBy])).toEqual([
      [STATUS_URL, 200, 'http.rules[0]'],
      [STATUS_URL, 200, 'http.rules[0]'],
    ])
    expect(b.events.http.map((call) => [call.url, call.status, call.answeredBy])).toEqual([[STATUS_URL, 200, 'http.rules[0]']])
  })

  it('a request made at session start, in a timer, is still its own session', async () => {
    const answers: string[] = []
    const early = (pi: ExtensionAPI) =>
      pi.on('session_start', () => void setTimeout(() => void fetch(STATUS_URL).then(async (r) => answers.push(await r.text())), 30))
    const a = await createTestSession({ extensions: [early], mocks: statusRule('from a') })
    await createTestSession({ mocks: statusRule('from b') })
    await delay(80)
    expect(answers).toEqual(['from a'])
    expect(a.events.http).toHaveLength(1)
  })

  it('outside every session: answered by the one session alive; with two alive, the request fails naming the problem', async () => {
    const a = await createTestSession({ mocks: statusRule('from a') })
    expect(await fetchStatusOutcome()).toBe('answered: from a')
    const b = await createTestSession({ mocks: statusRule('from b') })
    expect(await fetchStatusOutcome()).toBe(
      `failed: GET ${STATUS_URL} was made outside any test session while 2 sessions are alive; whose HTTP rules answer it cannot be known. ` +
        "Make the request from the extension's code (run(), command(), emit(), or what they start), or keep one session alive while making it.",
    )
    expect(a.events.http).toHaveLength(1)
    expect(b.events.http).toEqual([])
  })

  it('a request its session makes after dispose() fails: that session has ended, another does not answer it', async () => {
    let late: Promise<string> | undefined
    const lingering = (pi: ExtensionAPI) =>
      pi.registerCommand('later', {
        handler: async () => {
          late = delay(30).then(fetchStatusOutcome)
        },
      })
    const a = await createTestSession({ extensions: [lingering], mocks: statusRule('from a') })
    const b = await createTestSession({ mocks: statusRule('from b') })
    await a.command('later')
    await a.dispose()
    expect(await late).toBe(`failed: Network access is disabled in tests: GET ${STATUS_URL} (its test session has ended)`)
    expect(b.events.http).toEqual([])
  })
})

const SETTINGS = join('.pi', 'agent', 'settings.json')

/** A permission gate that remembers "Allow all" in the user's settings, as real gates do. */
function permissionGate(pi: ExtensionAPI) {
  const settings = () => join(os.homedir(), SETTINGS)
  pi.registerCommand('allow-all', {
    handler: async () => {
      mkdirSync(dirname(settings()), { recursive: true })
      writeFileSync(settings(), JSON.stringify({ allowAll: true }))
      writeFileSync(join(os.homedir(), 'x'), 'written by the first session')
    },
  })
  pi.on('tool_call', () => {
    const allowAll = existsSync(settings()) && (JSON.parse(readFileSync(settings(), 'utf8')) as { allowAll?: boolean }).allowAll
    return allowAll ? undefined : { block: true, reason: 'not allowed yet' }
  })
}

describe('each session has its own HOME', () => {
  it('an extension saves "Allow all" under ~/.pi in one test', async () => {
    const t = await createTestSession({ extensions: [permissionGate], mockTools: { bash: 'ran' } })
    await t.command('allow-all')
    await t.run(when('go', [calls('bash', { command: 'ls' }), says('done')]))
    expect(t.events.blockedCalls()).toEqual([])
    expect(existsSync(join(t.home, SETTINGS))).toBe(true)
  })

  it('a later test of the same file does not see it', async () => {
    const t = await createTestSession({ extensions: [permissionGate], mockTools: { bash: 'ran' } })
    await t.run(when('go', [calls('bash', { command: 'ls' }), says('done')]))
    expect(t.events.blockedCalls().map((call) => call.blockReason)).toEqual(['not allowed yet'])
    expect(existsSync(join(os.homedir(), 'x'))).toBe(false)
    expect(existsSync(join(file.isolation.home, 'x'))).toBe(false)
  })

  it('t.home is its own per session, is the HOME and agent dir Pi gets while it lives, and is removed by dispose()', async () => {
    const a = await createTestSession()
    const b = await createTestSession()
    expect(a.home).not.toBe(b.home)
    expect(a.home).toMatch(/\/pi-harness-\w+\/session-home-\w+$/)
    expect([existsSync(a.home), existsSync(b.home)]).toEqual([true, true])
    expect([process.env.HOME, process.env.PI_CODING_AGENT_DIR, os.homedir()]).toEqual([b.home, join(b.home, '.pi', 'agent'), b.home])
    await b.dispose()
    await settleTempDirs()
    expect(existsSync(b.home)).toBe(false)
    expect([process.env.HOME, os.homedir()]).toEqual([a.home, a.home])
    await a.dispose()
    await settleTempDirs()
    expect(existsSync(a.home)).toBe(false)
    expect([process.env.HOME, os.homedir()]).toEqual([file.isolation.home, file.isolation.home])
  })

  it('sessions that end out of order leave HOME as the newest remaining one, then as the file had it', async () => {
    const [a, b, c] = [await createTestSession(), await createTestSession(), await createTestSession()]
    await b.dispose()
    expect(process.env.HOME).toBe(c.home)
    await c.dispose()
    expect(process.env.HOME).toBe(a.home)
    await a.dispose()
    expect([process.env.HOME, process.env.XDG_CONFIG_HOME]).toEqual([file.isolation.home, join(file.isolation.home, '.config')])
  })
})

/** A tool that answers with the home its code sees, after a wait that lets the other tests' sessions start. */
function homeReporter(pi: ExtensionAPI) {
  pi.registerTool({
    name: 'whereami',
    label: 'Where am I',
    description: 'Reports the home directory',
    parameters: Type.Object({ wait: Type.Number() }),
    async execute(_id, { wait }) {
      await delay(wait)
      return { content: [{ type: 'text', text: `${os.homedir()} ${os.userInfo().homedir}` }], details: {} }
    },
  })
}

describe.concurrent('test.concurrent: each session sees its own os.homedir()', () => {
  test.each([1, 2, 3, 4])('test %i', async (i) => {
    const t = await createTestSession({ extensions: [homeReporter] })
    await t.run(when('where', [calls('whereami', { wait: (5 - i) * 15 }), says('here')]))
    expect(t.events.toolResultsFor('whereami').map((r) => r.text)).toEqual([`${t.home} ${t.home}`])
  })
})
