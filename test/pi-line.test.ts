import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from '../src/index.js'
import { setEnv } from '../src/shared/env.js'
import { PI_LINE } from '../src/pi/index.js'
import { piModuleLoader } from '../src/pi/load-package.js'
import { pathToFileURL } from 'node:url'
import { choosePiLine, piAiEntryOf, piCliOf, piIndexBesideCli, piLineAliases, satisfiesNode, type PiLineInfo } from '../src/pi/line.js'

const earendil: PiLineInfo = { scope: '@earendil-works', packageName: '@earendil-works/pi-coding-agent', version: '1.6.0', packageDir: '/nm/@earendil-works/pi-coding-agent', node: '>=22.19.0' }
const mariozechner: PiLineInfo = { scope: '@mariozechner', packageName: '@mariozechner/pi-coding-agent', version: '0.73.1', packageDir: '/nm/@mariozechner/pi-coding-agent', node: '>=20.6.0' }

describe('choosing the Pi line', () => {
  it('takes the current line first, and passes over a line that cannot run on this Node', () => {
    expect(choosePiLine([earendil, mariozechner], undefined, '22.23.5')).toBe(earendil)
    expect(choosePiLine([earendil, mariozechner], undefined, '20.20.2')).toBe(mariozechner)
    expect(choosePiLine([mariozechner], undefined, '22.23.5')).toBe(mariozechner)
  })

  it('takes the line VITEST_PI_PACKAGE names', () => {
    expect(choosePiLine([earendil, mariozechner], '@mariozechner/pi-coding-agent', '22.23.5')).toBe(mariozechner)
  })

  it('names both packages when neither is installed', () => {
    expect(() => choosePiLine([], undefined, '20.20.2')).toThrow(
      'vitest-environment-pi found no Pi: neither @earendil-works/pi-coding-agent nor @mariozechner/pi-coding-agent is installed. Install @earendil-works/pi-coding-agent (Node >=22.19) or @mariozechner/pi-coding-agent@0.73 (Node >=20.6) next to vitest-environment-pi.',
    )
  })

  it('says which Node an installed line needs when none runs here', () => {
    expect(() => choosePiLine([earendil], undefined, '20.20.2')).toThrow(
      'No installed Pi runs on Node 20.20.2: @earendil-works/pi-coding-agent@1.6.0 needs Node >=22.19.0.',
    )
  })

  it('rejects a forced line that is unknown, missing or unable to run here', () => {
    expect(() => choosePiLine([earendil], '@earendil/pi', '22.23.5')).toThrow(
      'VITEST_PI_PACKAGE=@earendil/pi names no Pi line: use @earendil-works/pi-coding-agent or @mariozechner/pi-coding-agent.',
    )
    expect(() => choosePiLine([earendil], '@mariozechner/pi-coding-agent', '22.23.5')).toThrow(
      'VITEST_PI_PACKAGE=@mariozechner/pi-coding-agent, but @mariozechner/pi-coding-agent is not installed.',
    )
    expect(() => choosePiLine([earendil, mariozechner], '@earendil-works/pi-coding-agent', '20.20.2')).toThrow(
      '@earendil-works/pi-coding-agent@1.6.0 needs Node >=22.19.0; this is Node 20.20.2.',
    )
  })

  it('compares Node versions part by part', () => {
    expect(satisfiesNode('>=22.19.0', '22.19.0')).toBe(true)
    expect(satisfiesNode('>=22.19.0', '22.9.0')).toBe(false)
    expect(satisfiesNode('>=22.19.0', '23.0.0')).toBe(true)
    expect(satisfiesNode('>=20.6', '20.20.2')).toBe(true)
    expect(satisfiesNode('>=20.6', '18.20.0')).toBe(false)
  })
})

describe("each Pi entry point under either line's name", () => {
  // An installed 1.x line in a temp dir: the coding agent, with or without pi-ai's extension view, and pi-ai,
  // with or without a compat entry.
  function installed1x({ view, compat }: { view: boolean; compat: boolean }): PiLineInfo {
    const root = mkdtempSync(join(tmpdir(), 'pi-line-'))
    cleanup.push(() => rmSync(root, { recursive: true, force: true }))
    const agent = join(root, 'node_modules/@earendil-works/pi-coding-agent')
    mkdirSync(join(agent, 'dist/core/extensions'), { recursive: true })
    writeFileSync(join(agent, 'package.json'), '{}')
    if (view) writeFileSync(join(agent, 'dist/core/extensions/pi-ai-extension-view.js'), '')
    mkdirSync(join(root, 'node_modules/@earendil-works/pi-ai'))
    const exports = { '.': './dist/index.js', ...(compat ? { './compat': './dist/compat.js' } : {}) }
    writeFileSync(join(root, 'node_modules/@earendil-works/pi-ai/package.json'), JSON.stringify({ exports }))
    return { ...earendil, packageDir: agent }
  }
  const cleanup: (() => void)[] = []
  afterEach(() => cleanup.splice(0).forEach((remove) => remove()))

  it("maps the other line's names to the running line, and pi-ai's root to what Pi's loader gives extensions", () => {
    const onCurrent = piLineAliases(installed1x({ view: true, compat: true }))
    expect(onCurrent['@mariozechner/pi-coding-agent']).toBe('@earendil-works/pi-coding-agent')
    expect(onCurrent['@mariozechner/pi-ai/models']).toBe('@earendil-works/pi-ai/models')
    expect(onCurrent['@mariozechner/pi-ai']).toMatch(/@earendil-works\/pi-coding-agent\/dist\/core\/extensions\/pi-ai-extension-view\.js$/)
    expect(onCurrent['@earendil-works/pi-ai']).toBe(onCurrent['@mariozechner/pi-ai'])
    expect(onCurrent['@earendil-works/pi-ai/compat']).toBe(onCurrent['@mariozechner/pi-ai'])
    expect(onCurrent['@earendil-works/pi-coding-agent']).toBeUndefined()
    const onOld = piLineAliases({ ...mariozechner, packageDir: join(process.cwd(), 'node_modules/@mariozechner/pi-coding-agent') })
    expect(onOld).toMatchObject({ '@earendil-works/pi-coding-agent': '@mariozechner/pi-coding-agent', '@earendil-works/pi-ai': '@mariozechner/pi-ai' })
    expect(onOld['@mariozechner/pi-ai']).toBeUndefined()
  })

  it("maps pi-ai's root to its compat entry before the extension view (0.80 to 1.4), and to itself before that", () => {
    const withCompat = piLineAliases(installed1x({ view: false, compat: true }))
    expect(withCompat['@mariozechner/pi-ai']).toBe('@earendil-works/pi-ai/compat')
    expect(withCompat['@earendil-works/pi-ai']).toBe('@earendil-works/pi-ai/compat')
    expect(withCompat['@mariozechner/pi-ai/compat']).toBe('@earendil-works/pi-ai/compat')
    expect(withCompat['@earendil-works/pi-ai/compat']).toBeUndefined()
    const plain = piLineAliases(installed1x({ view: false, compat: false }))
    expect(plain['@mariozechner/pi-ai']).toBe('@earendil-works/pi-ai')
    expect(plain['@earendil-works/pi-ai']).toBeUndefined()
  })
})

describe(`an extension that imports Pi by both names, on ${PI_LINE.packageName}@${PI_LINE.version}`, () => {
  let t: TestSession | undefined
  afterEach(async () => {
    await t?.dispose()
    t = undefined
  })

  const loaders = { "Vite's module runner (the environment's loader)": undefined, "Pi's own loader (jiti)": piModuleLoader() }
  for (const [name, importModule] of Object.entries(loaders)) {
    it(`loads the running Pi under either name through ${name}`, async () => {
      t = await createTestSession({ extensions: ['test/fixtures/extensions/both-lines.ts'], ...(importModule ? { importModule } : {}) })
      await t.command('versions')
      expect(JSON.parse(t.events.uiCallsFor('notify')[0]!.args[0] as string)).toEqual({ earendil: PI_LINE.version, mariozechner: PI_LINE.version })
      await t.run(when('pick one', [calls('pick', { colour: 'green' }), says('green it is')]))
      expect(t.events.toolResultsFor('pick').map((r) => r.text)).toEqual(['green'])
    })
  }
})

// The pi child's harness extension imports these by path: by name they would resolve from the harness's own
// node_modules, where the other line may be installed (on 1.x that loaded 0.73's whole coding agent into the child).
describe(`the running line's modules the pi child imports by path, on ${PI_LINE.packageName}@${PI_LINE.version}`, () => {
  it("takes pi-ai as the line's coding agent finds it, with its stream", async () => {
    const entry = piAiEntryOf(PI_LINE)
    expect(entry).toContain(join(PI_LINE.scope, 'pi-ai', ''))
    expect(typeof (await import(pathToFileURL(entry).href)).createAssistantMessageEventStream).toBe('function')
  })

  it("takes the coding agent's index beside the pi command, with the built-in tools' definitions", async () => {
    const cli = piCliOf(PI_LINE)
    const index = piIndexBesideCli(cli)
    expect(index.startsWith(PI_LINE.packageDir)).toBe(true)
    const codingAgent = (await import(pathToFileURL(index).href)) as Record<string, unknown>
    for (const name of ['Bash', 'Read', 'Edit', 'Write', 'Grep', 'Find', 'Ls']) expect(typeof codingAgent[`create${name}ToolDefinition`]).toBe('function')
  })
})

describe("Pi's own loader (jiti), as a sandbox's smoke imports the installed extensions", () => {
  it('leaves no compiled copy behind: none in the OS temp dir, none beside Pi in node_modules', async () => {
    // jiti caches under `<Pi's dir>/node_modules/.cache/jiti` when Pi has a node_modules of its own (1.x),
    // else under `<tmp>/jiti`, named `<dir>-<file>.<hash>.mjs`: a file name of its own finds its copy.
    const dir = mkdtempSync(join(tmpdir(), 'pi-jiti-probe-'))
    const tmp = join(dir, 'tmp')
    const name = `probe${process.pid}x${Date.now()}`
    mkdirSync(tmp)
    mkdirSync(join(dir, 'probe'))
    writeFileSync(join(dir, 'probe', `${name}.ts`), 'export const answer: number = 42\n')
    const restoreEnv = setEnv({ TMPDIR: tmp })
    try {
      const load = piModuleLoader()
      expect(await load(join(dir, 'probe', `${name}.ts`))).toMatchObject({ answer: 42 })
      expect(readdirSync(tmp)).toEqual([])
      const besidePi = join(PI_LINE.packageDir, 'node_modules', '.cache', 'jiti')
      expect(existsSync(besidePi) ? readdirSync(besidePi).filter((file) => file.startsWith(`probe-${name}.`)) : []).toEqual([])
    } finally {
      restoreEnv()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
