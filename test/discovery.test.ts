// Pi's resource loader discovers packages and resources on disk before every reload. Under the harness's
// discover-nothing options 0.73's loader drops all it finds, so a session that does not discover skips that
// first discovery. Skipped or not, the loader must load exactly the same.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DefaultPackageManager, type ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { Type } from 'typebox'
import { createTestSession } from '../src/index.js'
import { PI_LINE } from '../src/pi/index.js'
import { adapter, DISCOVER_NOTHING, PiResourceLoader, PiSettings } from '../src/pi/running-line.js'

const SKIPS = PI_LINE.scope === '@mariozechner'

function sample(pi: ExtensionAPI) {
  pi.registerTool({
    name: 'greet',
    label: 'Greet',
    description: 'Greets someone',
    parameters: Type.Object({ name: Type.String() }),
    execute: async () => ({ content: [{ type: 'text', text: 'hi' }], details: {} }),
  })
  pi.registerCommand('hello', { description: 'Says hello', handler: async () => {} })
  pi.registerFlag('loud', { type: 'boolean', default: false, description: 'Shout' })
}

const dirs: string[] = []
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'discovery-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  vi.restoreAllMocks()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function loader(cwd: string, home: string) {
  const agentDir = join(home, '.pi', 'agent')
  return new PiResourceLoader({ cwd, agentDir, settingsManager: PiSettings.inMemory(), extensionFactories: [sample], ...DISCOVER_NOTHING })
}

/** All a session takes from its loader. */
function whatLoaded(loaded: ReturnType<typeof loader>) {
  const { extensions, errors } = loaded.getExtensions()
  return {
    extensions: extensions.map((e) => ({ path: e.path, sourceInfo: e.sourceInfo, tools: [...e.tools.keys()], commands: [...e.commands.keys()], flags: [...e.flags.keys()] })),
    errors,
    skills: loaded.getSkills(),
    prompts: loaded.getPrompts(),
    themes: loaded.getThemes(),
    agentsFiles: loaded.getAgentsFiles(),
    systemPrompt: loaded.getSystemPrompt(),
    appendSystemPrompt: loaded.getAppendSystemPrompt(),
  }
}

/** Dirs where Pi's discovery finds something: a project extension, skill and prompt, a global extension. */
function populated(cwd: string, home: string) {
  const files = {
    [join(cwd, '.pi', 'extensions', 'found.ts')]: 'export default () => {}\n',
    [join(cwd, '.pi', 'skills', 'review', 'SKILL.md')]: '---\nname: review\ndescription: Reviews\n---\nReview.\n',
    [join(cwd, '.pi', 'prompts', 'fix.md')]: 'Fix it.\n',
    [join(home, '.pi', 'agent', 'extensions', 'global.ts')]: 'export default () => {}\n',
  }
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(file, '..'), { recursive: true })
    writeFileSync(file, text)
  }
}

describe(`the first discovery of a session, on ${PI_LINE.packageName}@${PI_LINE.version}`, () => {
  it.each(['fresh', 'populated'])(`is ${SKIPS ? 'skipped' : 'run'} over %s dirs, and the loader loads what it loads with Pi's discovery`, async (dirs) => {
    const [cwd, home] = [freshDir(), freshDir()]
    if (dirs === 'populated') populated(cwd, home)
    const discover = vi.spyOn(DefaultPackageManager.prototype, 'resolve')
    const discovered = loader(cwd, home)
    await discovered.reload()
    expect(discover).toHaveBeenCalledTimes(1)
    const skipped = loader(cwd, home)
    adapter.skipFirstDiscovery(skipped)
    await skipped.reload()
    expect(discover).toHaveBeenCalledTimes(SKIPS ? 1 : 2)
    expect(whatLoaded(skipped).extensions.map((e) => e.tools)).toEqual([['greet']])
    expect(whatLoaded(skipped)).toEqual(whatLoaded(discovered))
    if (dirs === 'populated') {
      // Discovered, and dropped by the loader alike.
      const found = (await discover.mock.results[0]!.value) as { extensions: { path: string }[] }
      expect(found.extensions.map((e) => e.path).sort()).toEqual([join(cwd, '.pi', 'extensions', 'found.ts'), join(home, '.pi', 'agent', 'extensions', 'global.ts')].sort())
    }
  })

  it('is the first only: a later reload discovers as Pi does, what the test wrote there included', async () => {
    const [cwd, home] = [freshDir(), freshDir()]
    const discover = vi.spyOn(DefaultPackageManager.prototype, 'resolve')
    const loaded = loader(cwd, home)
    adapter.skipFirstDiscovery(loaded)
    await loaded.reload()
    mkdirSync(join(cwd, '.pi', 'extensions'), { recursive: true })
    writeFileSync(join(cwd, '.pi', 'extensions', 'found.ts'), 'export default () => {}\n')
    await loaded.reload()
    expect(discover).toHaveBeenCalledTimes(SKIPS ? 1 : 2)
    const found = (await discover.mock.results.at(-1)!.value) as { extensions: { path: string }[] }
    expect(found.extensions.map((e) => e.path)).toEqual([join(cwd, '.pi', 'extensions', 'found.ts')])
    // Discovered, and dropped: the harness's sessions load only the extensions the test names.
    expect(whatLoaded(loaded).extensions.map((e) => e.path)).toEqual(['<inline:1>'])
  })

  it(`is ${SKIPS ? 'skipped' : 'run'} by createTestSession without discovery, over any dirs, and run with it`, async () => {
    const discover = vi.spyOn(DefaultPackageManager.prototype, 'resolve')
    const sessions = [
      await createTestSession({ extensions: [sample] }),
      await createTestSession({ extensions: [sample], cwd: freshDir() }),
      await createTestSession({ extensions: [sample], home: { '.pi/agent/settings.json': { theme: 'dark' } }, files: { '.pi/settings.json': {} } }),
    ]
    expect(discover).toHaveBeenCalledTimes(SKIPS ? 0 : 3)
    const discovering = await createTestSession({ extensions: [sample], discover: true })
    expect(discover).toHaveBeenCalledTimes(SKIPS ? 1 : 4)
    for (const t of [...sessions, discovering]) await t.dispose()
  })
})
