// The bundle of Pi's modules the workers import: one copy of Pi shared with the extensions, Pi's files read
// where they were, a cache keyed on what changed and safe for two runs at once, and the way back to Pi's own files.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { ensurePiBundle, PI_BUNDLE_MANIFEST } from '../src/pi/bundle.js'
import { importPiEntry, importPiFile, PI_BUNDLE_ENV, piFile, usesPiBundle } from '../src/pi/bundled.js'
import { entryFileFrom, piTypeBoxFiles, type PiLineInfo } from '../src/pi/line.js'
import { adapter, PI_LINE } from '../src/pi/running-line.js'
import { setEnv } from '../src/shared/env.js'
import { pi, piResolveAliases, usePiBundle } from '../environment/plugin.js'

const temp = mkdtempSync(join(tmpdir(), 'pi-bundle-'))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

describe("the run's bundle of Pi", () => {
  it('is what this suite runs on, as a user of pi() does', () => {
    expect(usesPiBundle(PI_LINE)).toBe(true)
    const entry = entryFileFrom(PI_LINE.packageDir, PI_LINE.packageName)!
    expect(piFile(PI_LINE, entry)).toContain('/node_modules/.cache/vitest-environment-pi/pi-bundle/')
  })

  it("is the one copy of Pi: an extension's import of Pi by either line's name gets the harness's modules", async () => {
    // As an extension imports them: through Vite, which the config's aliases send to the bundle.
    const codingAgent = await import('@mariozechner/pi-coding-agent')
    const earendil = await import('@earendil-works/pi-coding-agent')
    expect(codingAgent.SessionManager).toBe(adapter.exports.SessionManager)
    expect(earendil.SessionManager).toBe(adapter.exports.SessionManager)
    // pi-ai's registry: what an extension registers, the harness finds.
    const piAi = (await import('@mariozechner/pi-ai')) as typeof import('@mariozechner/pi-ai')
    const own = await importPiEntry<typeof import('@mariozechner/pi-ai')>(PI_LINE, 'pi-ai')
    expect(piAi.createAssistantMessageEventStream).toBe(own.createAssistantMessageEventStream)
    expect(piAi.createAssistantMessageEventStream).toBe(adapter.exports.createAssistantMessageEventStream)
  })

  it("gives an extension's import of TypeBox, by either name, Pi's own TypeBox from the bundle, as Pi's loader does", async () => {
    const typeBox = piTypeBoxFiles(PI_LINE)
    expect([...typeBox.keys()]).toEqual(['typebox', 'typebox/compile', 'typebox/value'])
    // The files Pi's loader resolves from its own (real) folder.
    const fromPi = createRequire(join(realpathSync(PI_LINE.packageDir), 'package.json'))
    for (const [entry, file] of typeBox) {
      expect(file).toBe(fromPi.resolve(entry))
      const pis = await import(pathToFileURL(piFile(PI_LINE, file)).href)
      expect(piFile(PI_LINE, file)).not.toBe(file)
      expect(await import(/* @vite-ignore */ entry)).toBe(pis)
      expect(await import(/* @vite-ignore */ `@sinclair/${entry}`)).toBe(pis)
    }
  })

  it("reads Pi's own files where Pi has them: its package dir, its themes", async () => {
    const config = await importPiFile<{ getPackageDir(): string }>(PI_LINE, 'dist/config.js')
    // Pi names its real path; the line may be found through a link (an installed package linked in).
    expect(realpathSync(config!.getPackageDir())).toBe(realpathSync(PI_LINE.packageDir))
    adapter.exports.initTheme('light')
    adapter.resetGlobals()
  })
})

// A Pi of our own making, in a node_modules of its own: what the bundle keeps, what it bundles, when it builds.
function fakePi(root: string): PiLineInfo {
  const packageDir = join(root, 'node_modules/@earendil-works/pi-coding-agent')
  const write = (file: string, text: string) => {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, text)
  }
  write(join(packageDir, 'package.json'), JSON.stringify({ name: '@earendil-works/pi-coding-agent', version: '9.9.9', type: 'module', exports: { '.': { import: './dist/index.js' } } }))
  write(
    join(packageDir, 'dist/index.js'),
    `import { readFileSync } from 'node:fs'
import * as typebox from 'typebox'
import { dir } from 'helper'
export { typebox }
export const helperDir = dir
export const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
export { theme } from './theme.js'
export { glyphs, isMark, framed } from './glyphs.js'
export { validateConfig } from './config.js'
`,
  )
  write(join(packageDir, 'dist/theme.js'), `export const theme = 'dark'\n`)
  // Text beyond ASCII in a comment, a string, a template and a regular expression, as a TUI draws it.
  write(join(packageDir, 'dist/glyphs.js'), `/** ✓ and ✗ mark a result. */\nexport const glyphs = '─│✓✗…🙂'\nexport const isMark = (text) => /^[✓✗🙂]$/u.test(text)\nexport const framed = (text) => \`│ \${text} │\`\n`)
  // A validator compiled as the module loads, as Pi compiles its models.json, theme and keybinding schemas.
  write(join(packageDir, 'dist/config.js'), `import { Compile } from 'typebox/compile'\nexport const validateConfig = Compile({ type: 'object' })\n`)
  write(join(root, 'node_modules/typebox/package.json'), JSON.stringify({ name: 'typebox', type: 'module', exports: { '.': './index.js', './compile': './compile.js' } }))
  write(join(root, 'node_modules/typebox/index.js'), `export const Kind = Symbol('kind')\n`)
  write(
    join(root, 'node_modules/typebox/compile.js'),
    `let count = 0
export class Validator {
  constructor(schema) { this.schema = schema }
  Check(value) { return typeof value === this.schema.type }
}
export function Compile(schema) { count++; return new Validator(schema) }
export const compiled = () => count
`,
  )
  // A CommonJS dependency, bundled, that reads beside itself.
  write(join(root, 'node_modules/helper/package.json'), JSON.stringify({ name: 'helper', main: 'index.js' }))
  write(join(root, 'node_modules/helper/index.js'), `exports.dir = __dirname\n`)
  return { scope: '@earendil-works', packageName: '@earendil-works/pi-coding-agent', version: '9.9.9', packageDir, node: '*' }
}

type FakePi = {
  manifest: { version: string }
  theme: string
  helperDir: string
  typebox: { Kind: symbol }
  validateConfig: { Check(value: unknown): boolean; schema: { type: string } }
  glyphs: string
  isMark: (text: string) => boolean
  framed: (text: string) => string
}

/** The file a worker of a run whose bundle is `dir` imports for `file`. */
function piFileIn(line: PiLineInfo, dir: string, file: string): string {
  const restore = setEnv({ [PI_BUNDLE_ENV]: dir })
  try {
    return piFile(line, file)
  } finally {
    restore()
  }
}

async function importBundled(line: PiLineInfo, dir: string): Promise<FakePi> {
  const restore = setEnv({ [PI_BUNDLE_ENV]: dir })
  try {
    const file = piFile(line, entryFileFrom(line.packageDir, line.packageName)!)
    expect(file.startsWith(dir)).toBe(true)
    // A query: each import reads the file as it is now, not as an earlier import of this test left it.
    return (await import(`${pathToFileURL(file).href}?${statSync(file).mtimeMs}`)) as FakePi
  } finally {
    restore()
  }
}

describe('building the bundle', () => {
  it("keeps each module's own place: import.meta.url, a CommonJS module's __dirname; TypeBox is the bundle's entry for it", async () => {
    const root = join(temp, 'place')
    const line = fakePi(root)
    const dir = await ensurePiBundle(line)
    expect(dir.startsWith(join(root, 'node_modules/.cache/vitest-environment-pi/pi-bundle/'))).toBe(true)
    const bundled = await importBundled(line, dir)
    expect(bundled.manifest.version).toBe('9.9.9')
    expect(bundled.helperDir).toBe(join(root, 'node_modules/helper'))
    // The module an extension's import of TypeBox gets (the plugin's aliases, Pi's loader): Pi's own.
    const typeBox = piFileIn(line, dir, join(root, 'node_modules/typebox/index.js'))
    expect(typeBox.startsWith(dir)).toBe(true)
    expect(bundled.typebox.Kind).toBe(((await import(pathToFileURL(typeBox).href)) as FakePi['typebox']).Kind)
  })

  it('is ASCII alone, with the same text as the files it came from: Node reads a file beyond ASCII as two-byte, which is slower', async () => {
    const line = fakePi(join(temp, 'ascii'))
    const dir = await ensurePiBundle(line)
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.mjs'))
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) expect(readFileSync(join(dir, file), 'utf8'), file).toMatch(/^[\x00-\x7f]*$/)
    const bundled = await importBundled(line, dir)
    expect(bundled.glyphs).toBe('─│✓✗…🙂')
    expect(['✓', '✗', '🙂', '…'].map(bundled.isMark)).toEqual([true, true, true, false])
    expect(bundled.framed('ok')).toBe('│ ok │')
  })

  it("compiles the coding agent's TypeBox validators when first used; anyone else's Compile is TypeBox's own", async () => {
    const root = join(temp, 'lazy-compile')
    const line = fakePi(root)
    const dir = await ensurePiBundle(line)
    const bundled = await importBundled(line, dir)
    type TypeBoxCompile = { Compile(schema: object): unknown; compiled(): number; Validator: new (schema: object) => unknown }
    // The module an extension's import of typebox/compile gets: the bundle's entry for it.
    const typeBox = (await import(pathToFileURL(piFileIn(line, dir, join(root, 'node_modules/typebox/compile.js'))).href)) as TypeBoxCompile
    expect(typeBox.compiled()).toBe(0)
    expect(bundled.validateConfig.Check({})).toBe(true)
    expect(bundled.validateConfig.Check('text')).toBe(false)
    expect(bundled.validateConfig.schema).toEqual({ type: 'object' })
    expect(bundled.validateConfig).toBeInstanceOf(typeBox.Validator)
    expect(typeBox.compiled()).toBe(1)
    typeBox.Compile({ type: 'string' })
    expect(typeBox.compiled()).toBe(2)
  })

  it('is built once, and again when a file it came from changes: never by time', async () => {
    const root = join(temp, 'rebuild')
    const line = fakePi(root)
    const dir = await ensurePiBundle(line)
    const built = statSync(join(dir, PI_BUNDLE_MANIFEST)).mtimeMs
    expect(await ensurePiBundle(line)).toBe(dir)
    expect(statSync(join(dir, PI_BUNDLE_MANIFEST)).mtimeMs).toBe(built)
    writeFileSync(join(line.packageDir, 'dist/theme.js'), `export const theme = 'light'\n`)
    expect(await ensurePiBundle(line)).toBe(dir)
    expect((await importBundled(line, dir)).theme).toBe('light')
  })

  it('is whole for two runs that build it at once, and leaves no build dir behind', async () => {
    const root = join(temp, 'concurrent')
    const line = fakePi(root)
    const [first, second] = await Promise.all([ensurePiBundle(line), ensurePiBundle(line)])
    expect(second).toBe(first)
    expect((await importBundled(line, first)).theme).toBe('dark')
    expect(readdirSync(dirname(first))).toEqual([first.split('/').at(-1)])
  })

  it("replaces the bundles of another version of Pi or of this harness and a dead build's dir; the other line's, another harness's and a live build's stay", async () => {
    const root = join(temp, 'prune')
    const line = fakePi(root)
    const earlier = await ensurePiBundle({ ...line, version: '9.9.8' })
    const bundles = dirname(earlier)
    const { builder } = JSON.parse(readFileSync(join(earlier, PI_BUNDLE_MANIFEST), 'utf8')) as { builder: string }
    expect(builder).toMatch(/[\\/]pi[\\/]bundle\.(ts|js)$/)
    const entry = entryFileFrom(line.packageDir, line.packageName)!
    // Beside it, bundles (as their manifests say) no run can use any more: a pre-release's (by any harness, or
    // one from before manifests named theirs), one this harness built before it changed; bundles a run could
    // still be using: another harness's of this version, one from before manifests named their harness, the
    // other line's; a name the harness did not make; the build dirs of a live process and of one that is gone.
    const bundleDir = (name: string, manifest?: object) => {
      const dir = join(bundles, name)
      mkdirSync(join(dir, 'chunks'), { recursive: true })
      if (manifest) writeFileSync(join(dir, PI_BUNDLE_MANIFEST), JSON.stringify(manifest))
      return dir
    }
    const at = (version: string, more = {}) => ({ line: { packageDir: line.packageDir, version }, entries: {}, inputs: {}, ...more })
    bundleDir('@earendil-works+pi-coding-agent@9.9.9-beta.1-0123456789abcdef', at('9.9.9-beta.1'))
    bundleDir('@earendil-works+pi-coding-agent@9.9.9-0000000000000000', at('9.9.9', { builder }))
    const otherHarness = bundleDir('@earendil-works+pi-coding-agent@9.9.9-fedcba9876543210', at('9.9.9', { builder: '/elsewhere/node_modules/vitest-environment-pi/dist/src/pi/bundle.js' }))
    const beforePruning = bundleDir('@earendil-works+pi-coding-agent@9.9.9-1111111111111111', at('9.9.9'))
    const otherLine = bundleDir('@mariozechner+pi-coding-agent@0.73.1-0123456789abcdef', at('0.73.1', { builder }))
    const notOurs = bundleDir('@earendil-works+pi-coding-agent@notes')
    const liveBuild = bundleDir(`.building-${process.pid}-a`)
    const deadPid = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }))
    bundleDir(`.building-${deadPid}-b`)
    const current = await ensurePiBundle(line)
    const kept = [current, otherHarness, beforePruning, otherLine, notOurs, liveBuild]
    expect(readdirSync(bundles).sort()).toEqual(kept.map((dir) => dir.split('/').at(-1)).sort())
    // A worker of a run that named the removed bundle imports Pi's own files.
    expect(piFileIn(line, earlier, entry)).toBe(entry)
    expect(piFileIn(line, current, entry).startsWith(current)).toBe(true)
  })

  it('says where Pi is when it is not in a node_modules', async () => {
    const line = { ...fakePi(join(temp, 'outside')), packageDir: join(temp, 'outside-pi') }
    await expect(ensurePiBundle(line)).rejects.toThrow(`@earendil-works/pi-coding-agent is not in a node_modules directory (${join(temp, 'outside-pi')})`)
  })
})

describe('pi({ bundlePi })', () => {
  type AliasEntry = { find: string | RegExp; replacement: string }
  /** What pi(options)'s config hook makes of `resolve` (over the config's own), and the bundle it names to the workers. */
  const configure = async (options: Parameters<typeof pi>[0], resolve: { alias?: object } = {}) => {
    const restore = setEnv({ [PI_BUNDLE_ENV]: process.env[PI_BUNDLE_ENV]! })
    try {
      const config: { test?: object; resolve?: { alias?: object } } = { resolve }
      await (pi(options).config as (config: object) => Promise<void>)(config)
      const entries = config.resolve!.alias as AliasEntry[]
      return { env: process.env[PI_BUNDLE_ENV], entries, aliases: entries.map((alias) => alias.replacement) }
    } finally {
      restore()
    }
  }

  it("sends the workers and the extensions' imports of Pi to the bundle by default", async () => {
    const { env, aliases } = await configure({})
    expect(env).toBe(process.env[PI_BUNDLE_ENV])
    expect(aliases.length).toBeGreaterThan(0)
    for (const replacement of aliases) expect(replacement.startsWith(env!)).toBe(true)
    expect(aliases).toEqual(piResolveAliases().map((alias) => alias.replacement))
  })

  it("warns and imports Pi's own files when the bundle cannot be built", async () => {
    const restore = setEnv({ [PI_BUNDLE_ENV]: process.env[PI_BUNDLE_ENV]! })
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const line = { ...fakePi(join(temp, 'unbuildable')), packageDir: join(temp, 'unbuildable-pi') }
      await usePiBundle(line)
      expect(process.env[PI_BUNDLE_ENV]).toBeUndefined()
      expect(warn).toHaveBeenCalledWith(
        `vitest-environment-pi: importing @earendil-works/pi-coding-agent unbundled (slower per test file): its bundle failed to build: @earendil-works/pi-coding-agent is not in a node_modules directory (${join(temp, 'unbuildable-pi')})`,
      )
    } finally {
      warn.mockRestore()
      restore()
    }
  })

  it("leaves a config's own alias of TypeBox first: the way to another TypeBox than Pi's", async () => {
    const { entries } = await configure({}, { alias: { typebox: '/elsewhere/typebox.mjs' } })
    const matching = entries.filter(({ find }) => (typeof find === 'string' ? find === 'typebox' : find.test('typebox')))
    // Vite takes the first alias that matches.
    expect(matching.map(({ replacement }) => replacement)[0]).toBe('/elsewhere/typebox.mjs')
    expect(matching).toHaveLength(2)
  })

  it("false: Pi's own files, as an unbundled run imports them", async () => {
    const { env, aliases } = await configure({ bundlePi: false })
    expect(env).toBeUndefined()
    for (const replacement of aliases) expect(replacement).not.toContain('/.cache/vitest-environment-pi/pi-bundle/')
    expect(existsSync(PI_LINE.packageDir)).toBe(true)
  })
})
