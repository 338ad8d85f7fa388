// The world a session starts in: files seeded into its home and cwd before its extensions run, Pi's own
// dirs and settings files, process.cwd(), a restart over the same dirs, and discovery kept to the session.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { setFileDefaults } from '../environment/defaults.js'
import { calls, createTestSession, says, test, when } from '../environment/index.js'
import { settleTempDirs } from '../src/index.js'
import { setEnv } from '../src/shared/env.js'

const PERMISSION = 'test/fixtures/extensions/permission.ts'
const TOOL_OVERRIDE = 'node_modules/@mariozechner/pi-coding-agent/examples/extensions/tool-override.ts'
const GLOBAL_SETTINGS = '.pi/agent/settings.json'

describe('the permission pattern, end to end', () => {
  it('reads the seeded level at start, /permission saves it globally, and a restarted session reads it', async () => {
    const t1 = await createTestSession({ extensions: [PERMISSION], home: { [GLOBAL_SETTINGS]: { permission: 'read-only' } }, mockTools: { bash: 'ran' } })
    expect(t1).toHaveSetStatus('permission', 'permission: read-only')
    await t1.run(when('list', [calls('bash', { command: 'ls' }), says('blocked')]))
    expect(t1).toHaveBlocked('bash')

    await t1.command('permission', 'full')
    expect(JSON.parse(readFileSync(join(t1.home, GLOBAL_SETTINGS), 'utf8'))).toEqual({ permission: 'full' })

    const t2 = await createTestSession({ extensions: [PERMISSION], restartFrom: t1, mockTools: { bash: 'ran' } })
    expect([t2.home, t2.cwd]).toEqual([t1.home, t1.cwd])
    expect(t2).toHaveSetStatus('permission', 'permission: full')
    await t2.run(when('list', [calls('bash', { command: 'ls' }), says('ran')]))
    expect(t2).not.toHaveBlocked('bash')
  })
})

describe("Pi's example tool-override.ts", () => {
  it('logs each read to read-access.log in the agent dir, and /read-log lists it', async () => {
    const t = await createTestSession({ extensions: [TOOL_OVERRIDE], files: { 'notes.txt': 'hello' } })
    expect(existsSync(join(t.home, '.pi', 'agent'))).toBe(true)
    await t.run(when('read it', [calls('read', { path: 'notes.txt' }), says('read')]))
    expect(t).toHaveToolResult('read', { text: 'hello' })
    await t.command('read-log')
    expect(t).toHaveNotified(new RegExp(`Recent file access:\\n\\[.*\\] ALLOWED: ${join(t.cwd, 'notes.txt')}`))
    expect(readFileSync(join(t.home, '.pi', 'agent', 'read-access.log'), 'utf8')).toContain(`ALLOWED: ${join(t.cwd, 'notes.txt')}`)
  })
})

describe('seeded files', () => {
  it('writes objects as JSON, strings and Buffers as they are, before the extension loads', async () => {
    let seen: string | undefined
    const t = await createTestSession({
      extensions: [() => void (seen = readFileSync(join(os.homedir(), 'config', 'tool.json'), 'utf8'))],
      home: { 'config/tool.json': { level: 2 } },
      files: { 'src/a.ts': 'export const a = 1\n', 'bin/blob': Buffer.from([0, 1, 2]) },
    })
    expect(JSON.parse(seen!)).toEqual({ level: 2 })
    expect(readFileSync(join(t.cwd, 'src/a.ts'), 'utf8')).toBe('export const a = 1\n')
    expect([...readFileSync(join(t.cwd, 'bin/blob'))]).toEqual([0, 1, 2])
  })

  it('refuses a path that leaves the dir, naming the key', async () => {
    await expect(createTestSession({ home: { '/etc/passwd': 'x' } })).rejects.toThrow(
      `createTestSession: option "home['/etc/passwd']" must be a path relative to the dir, got "/etc/passwd"`,
    )
    await expect(createTestSession({ files: { 'src/../../x': 'x' } })).rejects.toThrow(`option "files['src/../../x']" names a path outside the dir`)
  })

  it('refuses a path that leaves the dir through a symlink, naming the key', async () => {
    const outside = await createTestSession()
    const t1 = await createTestSession()
    symlinkSync(outside.home, join(t1.home, 'elsewhere'))
    await expect(createTestSession({ restartFrom: t1, home: { 'elsewhere/x.json': {} } })).rejects.toThrow(
      `createTestSession: option "home['elsewhere/x.json']" reaches outside the dir through a symlink`,
    )
    writeFileSync(join(outside.home, 'target.json'), 'theirs')
    symlinkSync(join(outside.home, 'target.json'), join(t1.home, 'link.json'))
    const t2 = await createTestSession({ restartFrom: t1 })
    await expect(createTestSession({ restartFrom: t2, home: { 'link.json': {} } })).rejects.toThrow(
      `createTestSession: option "home['link.json']" reaches outside the dir through a symlink`,
    )
    expect(existsSync(join(outside.home, 'x.json'))).toBe(false)
    expect(readFileSync(join(outside.home, 'target.json'), 'utf8')).toBe('theirs')
  })

  it('names the key when one seeded path needs another to be a directory', async () => {
    await expect(createTestSession({ home: { a: 'x', 'a/b': 'y' } })).rejects.toThrow(
      `createTestSession: option "home['a/b']" cannot be written: one of its parent paths is a file`,
    )
    await expect(createTestSession({ files: { 'a/b': 'y', a: 'x' } })).rejects.toThrow(
      `createTestSession: option "files.a" cannot be written: a directory is at that path`,
    )
  })

  it('leaves no dir behind when it refuses a seed', async () => {
    // A TMPDIR of this test's own: what is left there once settled is what the refused session left.
    const base = mkdtempSync(join(os.tmpdir(), 'pi-refused-seed-'))
    const restoreEnv = setEnv({ TMPDIR: base })
    try {
      await expect(createTestSession({ files: { 'a/b': 'y', a: 'x' } })).rejects.toThrow('a directory is at that path')
      await settleTempDirs()
      expect(readdirSync(base)).toEqual([])
    } finally {
      restoreEnv()
      rmSync(base, { recursive: true, force: true })
    }
  })

  it('names the key and what it got for a content of the wrong type', async () => {
    await expect(createTestSession({ home: { 'a.txt': 42 as never } })).rejects.toThrow(
      `createTestSession: option "home['a.txt']" must be the file's content: a string, a Buffer, or an object or array (written as JSON), got 42 (a number)`,
    )
    await expect(createTestSession({ files: 'AGENTS.md' as never })).rejects.toThrow(
      'createTestSession: option "files" must be an object of file paths (relative to the dir) to contents, got "AGENTS.md" (a string)',
    )
  })

  it("refuses files with a cwd of the test's own: the harness never writes into the test's dirs", async () => {
    await expect(createTestSession({ cwd: process.cwd(), files: { 'a.txt': 'x' } })).rejects.toThrow(`option "files" seeds the session's own temp cwd`)
  })

  it('two sessions alive at once each see only their own seeds', async () => {
    const readsLevel = (pi: ExtensionAPI) =>
      pi.registerCommand('level', {
        handler: async (_args, ctx) => ctx.ui.notify(readFileSync(join(os.homedir(), GLOBAL_SETTINGS), 'utf8') + readFileSync(join(ctx.cwd, 'who'), 'utf8')),
      })
    const [a, b] = await Promise.all([
      createTestSession({ extensions: [readsLevel], home: { [GLOBAL_SETTINGS]: { level: 'a' } }, files: { who: 'a' } }),
      createTestSession({ extensions: [readsLevel], home: { [GLOBAL_SETTINGS]: { level: 'b' } }, files: { who: 'b' } }),
    ])
    expect(a.home).not.toBe(b.home)
    await Promise.all([a.command('level'), b.command('level')])
    expect(a).toHaveNotified(`${JSON.stringify({ level: 'a' }, null, 2)}\na`)
    expect(b).toHaveNotified(`${JSON.stringify({ level: 'b' }, null, 2)}\nb`)
  })
})

describe('a world made alike, kept for the next session', () => {
  const seeds = { home: { [GLOBAL_SETTINGS]: { level: 'seeded' }, 'config/tool.json': { on: true } }, files: { 'src/a.ts': 'export const a = 1\n', 'notes.txt': 'hello' } }
  // Every path under a dir, with its mode and a file's content: what a session sees there.
  const tree = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, withFileTypes: true }).map((entry) => {
      const path = join(entry.parentPath, entry.name)
      const what = entry.isFile() ? readFileSync(path, 'utf8') : entry.isDirectory() ? 'dir' : 'other'
      return `${path.slice(dir.length + 1)} ${statSync(path).mode.toString(8)} ${what}`
    }).sort()
  const inode = (t: { home: string }) => statSync(join(t.home, GLOBAL_SETTINGS)).ino

  it('goes to the next session seeded alike, under new paths, once the earlier one is gone', async () => {
    const fresh = await createTestSession(seeds)
    const [home, cwd, ino] = [tree(fresh.home), tree(fresh.cwd), inode(fresh)]
    await fresh.dispose()
    const next = await createTestSession(seeds)
    expect(inode(next)).toBe(ino)
    expect([next.home, next.cwd]).not.toContain(fresh.home)
    expect([next.home, next.cwd]).not.toContain(fresh.cwd)
    expect([existsSync(fresh.home), existsSync(fresh.cwd)]).toEqual([false, false])
    expect([tree(next.home), tree(next.cwd)]).toEqual([home, cwd])
  })

  it.each([
    ['a seed rewritten, same size', (t: { home: string; cwd: string }) => writeFileSync(join(t.cwd, 'notes.txt'), 'HELLO')],
    ['a seed grown', (t: { home: string; cwd: string }) => writeFileSync(join(t.cwd, 'notes.txt'), 'hello, world')],
    ['a seed removed', (t: { home: string; cwd: string }) => rmSync(join(t.home, 'config/tool.json'))],
    ["a seed's mode changed", (t: { home: string; cwd: string }) => chmodSync(join(t.home, GLOBAL_SETTINGS), 0o600)],
    ["a dir's mode changed", (t: { home: string; cwd: string }) => chmodSync(join(t.cwd, 'src'), 0o700)],
    ['a file added in the agent dir', (t: { home: string; cwd: string }) => writeFileSync(join(t.home, '.pi/agent/read-access.log'), '')],
    ['an empty dir added', (t: { home: string; cwd: string }) => mkdirSync(join(t.cwd, 'out'))],
    ['a seed replaced by a symlink to the same content', (t: { home: string; cwd: string }) => {
      writeFileSync(join(t.cwd, 'copy.txt'), 'hello')
      rmSync(join(t.cwd, 'notes.txt'))
      symlinkSync('copy.txt', join(t.cwd, 'notes.txt'))
    }],
  ])('never goes to another session once a session changed it: %s', async (_change, change) => {
    const fresh = await createTestSession(seeds)
    const [home, cwd] = [tree(fresh.home), tree(fresh.cwd)]
    change(fresh)
    await fresh.dispose()
    const next = await createTestSession(seeds)
    expect([tree(next.home), tree(next.cwd)]).toEqual([home, cwd])
  })

  it('so is a world seeded with nothing, and one a session wrote into is not', async () => {
    const agentDirInode = (t: { home: string }) => statSync(join(t.home, '.pi/agent')).ino
    const fresh = await createTestSession()
    const [home, cwd, ino] = [tree(fresh.home), tree(fresh.cwd), agentDirInode(fresh)]
    await fresh.dispose()
    const next = await createTestSession()
    expect(agentDirInode(next)).toBe(ino)
    expect([existsSync(fresh.home), existsSync(fresh.cwd)]).toEqual([false, false])
    writeFileSync(join(next.home, '.pi/agent/read-access.log'), 'read notes.txt\n')
    await next.dispose()
    const third = await createTestSession()
    expect([tree(third.home), tree(third.cwd)]).toEqual([home, cwd])
  })

  it('never goes to a session seeded otherwise, nor to two sessions at once', async () => {
    // Seeds of this test's own: no world an earlier test kept is taken here.
    const mine = { ...seeds, files: { ...seeds.files, 'mine.txt': 'two at once' } }
    const first = await createTestSession(mine)
    const ino = inode(first)
    await first.dispose()
    const other = await createTestSession({ ...mine, files: { 'notes.txt': 'hello' } })
    expect(inode(other)).not.toBe(ino)
    expect(readdirSync(other.cwd, { recursive: true })).toEqual(['notes.txt'])
    const [a, b] = await Promise.all([createTestSession(mine), createTestSession(mine)])
    expect(a.home).not.toBe(b.home)
    expect([inode(a), inode(b)].filter((each) => each === ino)).toHaveLength(1)
  })

  it('is removed when the file settles', async () => {
    const base = mkdtempSync(join(os.tmpdir(), 'pi-kept-world-'))
    const restoreEnv = setEnv({ TMPDIR: base })
    try {
      await (await createTestSession(seeds)).dispose()
      expect(readdirSync(base)).toHaveLength(1)
      await settleTempDirs()
      expect(readdirSync(base)).toEqual([])
    } finally {
      restoreEnv()
      rmSync(base, { recursive: true, force: true })
    }
  })
})

describe("settings, as Pi's SettingsManager reads and writes them", () => {
  it('merges the project file over the global one, as Pi does', async () => {
    const t = await createTestSession({
      home: { [GLOBAL_SETTINGS]: { theme: 'light', steeringMode: 'all', images: { autoResize: false, blockImages: true } } },
      files: { '.pi/settings.json': { theme: 'dark', images: { blockImages: false } } },
    })
    const settings = t.session.settingsManager
    expect([settings.getTheme(), settings.getSteeringMode(), settings.getImageAutoResize(), settings.getBlockImages()]).toEqual(['dark', 'all', false, false])
  })

  it("keeps the harness's own defaults (compaction and retry off) unless a seeded setting says otherwise", async () => {
    const plain = await createTestSession()
    expect([plain.session.settingsManager.getCompactionEnabled(), plain.session.settingsManager.getRetryEnabled()]).toEqual([false, false])
    const seeded = await createTestSession({ home: { [GLOBAL_SETTINGS]: { compaction: { enabled: true } } }, files: { '.pi/settings.json': { retry: { enabled: true } } } })
    expect([seeded.session.settingsManager.getCompactionEnabled(), seeded.session.settingsManager.getRetryEnabled()]).toEqual([true, true])
  })

  it('what Pi saves lands in the global file, without the harness defaults', async () => {
    const t = await createTestSession({ home: { [GLOBAL_SETTINGS]: { theme: 'light' } } })
    t.session.setSteeringMode('all')
    await t.session.settingsManager.flush()
    expect(JSON.parse(readFileSync(join(t.home, GLOBAL_SETTINGS), 'utf8'))).toEqual({ theme: 'light', steeringMode: 'all' })
  })
})

describe('models.json in the agent dir', () => {
  it('defines models as in Pi: extensions find them in the registry', async () => {
    const finds = (pi: ExtensionAPI) =>
      pi.registerCommand('find', { handler: async (_args, ctx) => ctx.ui.notify(`found: ${ctx.modelRegistry.find('ollama', 'llama3.1:8b')?.id}`) })
    const modelsJson = { providers: { ollama: { baseUrl: 'http://127.0.0.1:11434/v1', api: 'openai-completions', apiKey: 'ollama', models: [{ id: 'llama3.1:8b' }] } } }
    const seeded = await createTestSession({ extensions: [finds], home: { '.pi/agent/models.json': modelsJson } })
    await seeded.command('find')
    expect(seeded).toHaveNotified('found: llama3.1:8b')
    const plain = await createTestSession({ extensions: [finds] })
    await plain.command('find')
    expect(plain).toHaveNotified('found: undefined')
  })

  it("is checked against Pi's schema as in Pi: a wrong one is the registry's error", async () => {
    const error = (pi: ExtensionAPI) => pi.registerCommand('error', { handler: async (_args, ctx) => ctx.ui.notify(`error: ${ctx.modelRegistry.getError()}`) })
    const wrong = { providers: { ollama: { baseUrl: 'http://127.0.0.1:11434/v1', api: 'openai-completions', apiKey: 'ollama', models: [{ id: 42 }] } } }
    const t = await createTestSession({ extensions: [error], home: { '.pi/agent/models.json': wrong } })
    await t.command('error')
    expect(t).toHaveNotified(expect.stringMatching(/^error: Invalid models\.json schema:\n {2}- providers\.ollama\.models\.0\.id: must be string\n/))
  })
})

describe("process.cwd() is the session's cwd for the session's code", () => {
  it('in a handler, a timer and a tool; the test itself sees the real cwd', async () => {
    const real = process.cwd()
    const seen: Record<string, string> = {}
    let timerRan!: () => void
    const timer = new Promise<void>((resolve) => (timerRan = resolve))
    const t = await createTestSession({
      extensions: [
        (pi: ExtensionAPI) => {
          pi.on('session_start', () => {
            seen.handler = process.cwd()
            setTimeout(() => {
              seen.timer = process.cwd()
              timerRan()
            }, 1)
          })
          pi.registerTool({
            name: 'where',
            label: 'Where',
            description: 'Says the cwd',
            parameters: Type.Object({}),
            execute: async () => ({ content: [{ type: 'text', text: process.cwd() }], details: {} }),
          })
        },
      ],
    })
    await t.run(when('where', [calls('where', {}), says('there')]))
    await timer
    expect(seen).toEqual({ handler: t.cwd, timer: t.cwd })
    expect(t).toHaveToolResult('where', { text: t.cwd })
    expect(process.cwd()).toBe(real)
  })

  it("process.chdir() in a session moves that session's cwd alone, and the process's never", async () => {
    const real = process.cwd()
    const t = await createTestSession({
      files: { 'sub/x': '' },
      extensions: [(pi: ExtensionAPI) => pi.registerCommand('cd', { handler: async (args, ctx) => ctx.ui.notify(`${process.chdir(args)}${process.cwd()}`.replace('undefined', '')) })],
    })
    await t.command('cd', 'sub')
    expect(t).toHaveNotified(join(t.cwd, 'sub'))
    expect(process.cwd()).toBe(real)
    await expect(t.command('cd', 'missing')).rejects.toThrow('ENOENT')
    await t.dispose()
    expect(process.cwd()).toBe(real)
  })
})

describe('restartFrom', () => {
  it('ends the earlier session (session_shutdown fires) and keeps its dirs until the last user ends', async () => {
    let shutdowns = 0
    const counting = (pi: ExtensionAPI) => pi.on('session_shutdown', () => void shutdowns++)
    const t1 = await createTestSession({ extensions: [counting], files: { 'kept.txt': 'yes' } })
    const t2 = await createTestSession({ extensions: [counting], restartFrom: t1 })
    expect(shutdowns).toBe(1)
    expect(readFileSync(join(t2.cwd, 'kept.txt'), 'utf8')).toBe('yes')
    await t2.dispose()
    await settleTempDirs()
    expect([existsSync(t2.home), existsSync(t2.cwd)]).toEqual([false, false])
  })

  it('refuses a session already disposed, saying how to restart', async () => {
    const t1 = await createTestSession()
    await t1.dispose()
    await expect(createTestSession({ restartFrom: t1 })).rejects.toThrow('option "restartFrom" names a session already disposed')
  })
})

describe('discover', () => {
  const project = {
    '.pi/extensions/hello.js': "export default function (pi) { pi.registerCommand('hello', { handler: async (_a, ctx) => ctx.ui.notify('hello from the project') }) }\n",
    'AGENTS.md': 'Always answer in haiku.\n',
  }

  it("off by default: the project's extensions and AGENTS.md are not loaded", async () => {
    const t = await createTestSession({ files: project })
    await expect(t.command('hello')).rejects.toThrow('No command "/hello" is registered')
    expect(t.session.systemPrompt).not.toContain('Always answer in haiku.')
  })

  it("on: Pi discovers the project's extensions and AGENTS.md, as on start", async () => {
    const t = await createTestSession({ files: project, discover: true })
    await t.command('hello')
    expect(t).toHaveNotified('hello from the project')
    expect(t.session.systemPrompt).toContain('Always answer in haiku.')
  })

  it("on: what Pi finds above the session's dirs is dropped", async () => {
    const probe = await createTestSession()
    // The dir that holds the process's session dirs: Pi climbs through it from the cwd for AGENTS.md.
    const above = join(dirname(probe.cwd), 'AGENTS.md')
    writeFileSync(above, 'Never seen.\n')
    try {
      const t = await createTestSession({ files: { 'AGENTS.md': 'Seen.\n' }, discover: true })
      expect(t.session.systemPrompt).toContain('Seen.')
      expect(t.session.systemPrompt).not.toContain('Never seen.')
    } finally {
      rmSync(above)
    }
  })

  it("on: the agent dir's extensions too", async () => {
    const t = await createTestSession({ home: { '.pi/agent/extensions/global.js': project['.pi/extensions/hello.js'] }, discover: true })
    await t.command('hello')
    expect(t).toHaveNotified('hello from the project')
  })
})

describe('seeds from the fixture and the per-file options', () => {
  describe('test.override', () => {
    test.override({ sessionOptions: { extensions: [PERMISSION], home: { [GLOBAL_SETTINGS]: { permission: 'read-only' } } } })

    test('the session fixture starts over them', async ({ session }) => {
      expect(session).toHaveSetStatus('permission', 'permission: read-only')
    })
  })

  it("environmentOptions.pi and a docblock: their seeds add up with the call's, path by path", async () => {
    setFileDefaults(globalThis, { home: { 'a.json': { from: 'file' }, 'b.txt': 'file' }, files: { 'c.txt': 'file' } })
    try {
      const t = await createTestSession({ home: { 'b.txt': 'call' } })
      expect([readFileSync(join(t.home, 'a.json'), 'utf8'), readFileSync(join(t.home, 'b.txt'), 'utf8'), readFileSync(join(t.cwd, 'c.txt'), 'utf8')]).toEqual([
        '{\n  "from": "file"\n}\n',
        'call',
        'file',
      ])
    } finally {
      setFileDefaults(globalThis, undefined)
    }
  })

  it('environmentOptions.pi and a docblock hold texts and JSON values, naming the key of anything else', async () => {
    setFileDefaults(globalThis, { home: { 'a.bin': Buffer.from('x') } } as never)
    try {
      await expect(createTestSession()).rejects.toThrow(`environmentOptions.pi: option "home['a.bin']" must be a text or a JSON value here`)
    } finally {
      setFileDefaults(globalThis, undefined)
    }
  })
})
