import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, settleTempDirs, when, type TestSession } from '../src/index.js'
import { PI_LINE } from '../src/pi/index.js'

const GUARD = 'test/fixtures/extensions/guard.ts'

/** A plan mode in miniature: `/plan` toggles it, and while on, writes are blocked. */
function planMode(pi: ExtensionAPI) {
  let planning = false
  pi.registerCommand('plan', {
    description: 'Toggle plan mode',
    handler: async (_args, ctx) => {
      planning = !planning
      ctx.ui.setStatus('plan', planning ? 'planning' : undefined)
    },
  })
  pi.on('tool_call', (event) => {
    if (planning && (event.toolName === 'write' || event.toolName === 'edit')) {
      return { block: true, reason: `Plan mode: ${event.toolName} is disabled` }
    }
  })
}

describe('createTestSession', () => {
  let t: TestSession | undefined
  afterEach(async () => {
    await t?.dispose()
    t = undefined
  })

  it('runs a real Pi session whose model is the playbook and records a block from the hook', async () => {
    t = await createTestSession({ extensions: [GUARD], mockTools: { bash: (p) => `ran ${p.command}` }, mockUI: { confirm: true } })
    await t.run(
      when('clean up', [calls('greet', { name: 'x' }), calls('bash', { command: 'rm -rf /' }), calls('bash', { command: 'ls' }), says('done')]),
    )
    expect(t.session.constructor.name).toBe('AgentSession')
    expect(t.events.blockedCalls()).toMatchObject([{ toolName: 'bash', blocked: true, blockReason: 'rm -rf is not allowed', step: 2 }])
    expect(t.events.toolResultsFor('bash').map((r) => [r.text, r.isError, r.mocked])).toEqual([
      ['rm -rf is not allowed', true, false],
      ['ran ls', false, true],
    ])
    expect(t.events.toolResultsFor('greet')[0]).toMatchObject({ text: 'Hello, x!', details: { confirmed: true }, mocked: false })
    expect(t.events.lastAssistantText()).toBe('done')
    expect(t.playbook).toEqual({ consumed: 4, remaining: 0 })
  })

  it('drives a command that switches a mode which blocks writes', async () => {
    t = await createTestSession({ extensions: [planMode], mockTools: { write: 'written' } })
    await t.command('plan')
    await t.run(when('change it', [calls('write', { path: 'a.ts', content: '' }), says('blocked, as expected')]))
    await t.command('plan')
    await t.run(when('now change it', [calls('write', { path: 'a.ts', content: '' }), says('written')]))
    expect(t.events.toolCallsFor('write').map((c) => [c.blocked, c.blockReason])).toEqual([
      [true, 'Plan mode: write is disabled'],
      [false, undefined],
    ])
    expect(t.events.uiCallsFor('setStatus').map((c) => c.args)).toEqual([
      ['plan', 'planning'],
      ['plan', undefined],
    ])
  })

  it('names the registered commands when a command does not exist', async () => {
    t = await createTestSession({ extensions: [planMode] })
    await expect(t.command('plam')).rejects.toThrow('No command "/plam" is registered. Registered commands: /plan')
  })

  it('fires an extension event through Pi and returns what the handlers answered', async () => {
    t = await createTestSession({
      extensions: [(pi) => pi.on('session_before_switch', (event) => (event.reason === 'new' ? { cancel: true } : undefined))],
    })
    expect(await t.emit('session_before_switch', { reason: 'new' })).toEqual({ cancel: true })
    expect(await t.emit('session_before_switch', { reason: 'resume' })).toBeUndefined()
  })

  it('fails the run when an extension handler throws, naming the extension and the event', async () => {
    t = await createTestSession({
      extensions: [
        (pi) =>
          pi.on('agent_end', () => {
            throw new Error('state file corrupt')
          }),
      ],
    })
    await expect(t.run(when('hi', [says('hello')]))).rejects.toThrow('Extension <inline:1> threw in its "agent_end" handler: state file corrupt')
    expect(t.events.extensionErrors).toMatchObject([{ event: 'agent_end', error: 'state file corrupt' }])
  })

  it('works in the cwd it is given, and leaves it in place', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'pi-given-'))
    writeFileSync(join(cwd, 'README.md'), 'hello from the project')
    t = await createTestSession({ cwd, propagateErrors: false })
    await t.run(when('read', [calls('read', { path: 'README.md' }), says('ok')]))
    expect(t.cwd).toBe(cwd)
    expect(t.events.toolResultsFor('read')[0]!.text).toBe('hello from the project')
    await t.dispose()
    // dispose() schedules the removal of the session's own dirs: settled, only those are gone.
    await settleTempDirs()
    expect(existsSync(join(cwd, 'README.md'))).toBe(true)
    rmSync(cwd, { recursive: true })
  })

  it('fires session_shutdown on dispose, once, and refuses to run afterwards', async () => {
    const reasons: string[] = []
    t = await createTestSession({ extensions: [(pi) => pi.on('session_shutdown', (event) => void reasons.push(event.reason))] })
    await t.dispose()
    await t.dispose()
    expect(reasons).toEqual(['quit'])
    await expect(t.run(when('hi', [says('x')]))).rejects.toThrow('run() after dispose(): this test session is closed')
  })
})

describe('hermetic sessions', () => {
  it('never touches the real home or ~/.pi, and removes its temp dirs on dispose', async () => {
    const realHome = homedir()
    const realUserHome = userInfo().homedir
    const realPi = join(realHome, '.pi')
    const before = existsSync(realPi) ? readdirSync(realPi, { recursive: true }) : undefined
    const seen: Record<string, string | undefined> = {}
    const t = await createTestSession({
      extensions: [
        (pi) =>
          pi.registerCommand('where', {
            handler: async (_args, ctx) => {
              seen.home = homedir()
              seen.userInfoHome = userInfo().homedir
              seen.agentDir = process.env.PI_CODING_AGENT_DIR
              seen.offline = process.env.PI_OFFLINE
              seen.cwd = ctx.cwd
              pi.appendEntry('note', { saved: true })
            },
          }),
      ],
      mockTools: { bash: 'ok' },
    })
    await t.command('where')
    await t.run(when('work', [calls('bash', { command: 'ls' }), says('done')]))
    expect(seen.home).not.toBe(realHome)
    expect(seen.userInfoHome).toBe(seen.home)
    expect(seen.agentDir!.startsWith(seen.home!)).toBe(true)
    expect(seen.offline).toBe('1')
    expect(seen.cwd).toBe(t.cwd)
    expect(t.session.sessionFile).toBeUndefined()
    expect(existsSync(seen.home!)).toBe(true)
    await t.dispose()
    // Removed in the background, and gone once settled (as at the end of a test file).
    await settleTempDirs()
    expect(existsSync(seen.home!)).toBe(false)
    expect(existsSync(t.cwd)).toBe(false)
    expect(homedir()).toBe(realHome)
    expect(userInfo().homedir).toBe(realUserHome)
    expect(existsSync(realPi) ? readdirSync(realPi, { recursive: true }) : undefined).toEqual(before)
  })

  it('shares one temp home between concurrent sessions and removes it after the last', async () => {
    const [a, b] = await Promise.all([createTestSession(), createTestSession()])
    expect(a.cwd).not.toBe(b.cwd)
    const home = homedir()
    await a.dispose()
    await settleTempDirs()
    expect(existsSync(home)).toBe(true)
    await b.dispose()
    await settleTempDirs()
    expect(existsSync(home)).toBe(false)
  })
})

describe("Pi's package dir", () => {
  // Pi names its own docs in the system prompt, finding its dir by climbing from its modules.
  const piDocs = `Main documentation: ${join(realpathSync(PI_LINE.packageDir), 'README.md')}`
  const docsLines = (prompt: string) => prompt.split('\n').filter((line) => /^- (Main documentation|Additional docs|Examples): /.test(line))

  it("names Pi's own docs in the prompt, and never shows PI_PACKAGE_DIR to an extension or a child's environment", async () => {
    const seen: (string | undefined)[] = []
    const look = () => void seen.push(process.env.PI_PACKAGE_DIR)
    const t = await createTestSession({
      extensions: [
        (pi) => {
          look()
          pi.on('session_start', look)
          pi.on('tool_call', look)
        },
      ],
      mockTools: { bash: 'ok' },
    })
    look()
    const built = t.session.systemPrompt
    // Built again by Pi alone, which finds its dir itself: the same docs.
    t.session.setActiveToolsByName(t.session.getActiveToolNames())
    expect(docsLines(built)).toEqual(docsLines(t.session.systemPrompt))
    await t.run(when('work', [calls('bash', { command: 'ls' }), says('done')]))
    await t.dispose()
    expect(built).toContain(piDocs)
    expect(t.events.modelRequests[0]!.systemPrompt).toContain(piDocs)
    expect(seen).toEqual([undefined, undefined, undefined, undefined])
  })

  it('keeps a dir the user set, and Pi uses it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-package-dir-'))
    process.env.PI_PACKAGE_DIR = dir
    try {
      const t = await createTestSession()
      await t.run(when('hi', [says('hello')]))
      await t.dispose()
      expect(t.events.modelRequests[0]!.systemPrompt).toContain(`Main documentation: ${join(dir, 'README.md')}`)
      expect(process.env.PI_PACKAGE_DIR).toBe(dir)
    } finally {
      delete process.env.PI_PACKAGE_DIR
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('extension flags', () => {
  it('sets a flag before the session starts, as `pi --plan` does', async () => {
    const seen: unknown[] = []
    const flagged = (pi: ExtensionAPI) => {
      pi.registerFlag('plan', { description: 'start in plan mode', type: 'boolean', default: false })
      pi.on('session_start', () => void seen.push(pi.getFlag('plan')))
    }
    const t = await createTestSession({ extensions: [flagged], flags: { plan: true } })
    expect(seen).toEqual([true])
    await t.dispose()
    await expect(createTestSession({ extensions: [flagged], flags: { plna: true } })).rejects.toThrow(
      'flags names no registered flag: plna. Registered flags: plan',
    )
  })
})
