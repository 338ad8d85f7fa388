// Pi's packages and their dependencies built into one set of ES modules, once, for every worker of every run:
// importing Pi from it costs about half of importing its thousands of files. Each module keeps its own file as
// `import.meta.url` (a CommonJS one its `__dirname`), so what Pi reads beside its files (themes, package.json,
// docs, assets) resolves as before; native addons stay where they are. Pi's entry points and the TypeBox it
// hands to extensions are entries of the bundle, which the harness, the extensions and Pi's loader all import.
import { createHash, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { entryFileFrom, PI_CORE_ENTRIES, piTypeBoxFiles, type PiLineInfo } from './line.js'

/** What a worker reads to find the bundle: the running line, and each bundled entry file by its original path. */
export interface PiBundleManifest {
  line: { packageDir: string; version: string }
  /** Original file → the bundle's file for it (relative to the manifest's directory). */
  entries: Record<string, string>
  /** Every file the bundle was built from, with a digest of its content: a change to any rebuilds it. */
  inputs: Record<string, string>
  /** This module's file where the harness that built the bundle is installed (absent before pruning came). */
  builder?: string
}

export const PI_BUNDLE_MANIFEST = 'pi-bundle.json'

/**
 * The bundle's chunk of Pi's compaction modules (theirs alone), named so: the harness tells Pi's own summary
 * requests from an extension's by the compaction files on the stack (caller.ts).
 */
export const PI_COMPACTION_CHUNK = 'pi-compaction'
const COMPACTION_MODULES = /pi-coding-agent[\\/]dist[\\/]core[\\/]compaction[\\/]/

// Files of the coding agent the harness imports by path, beside its package entries (each a no-op where a
// release lacks it).
const INTERNAL_FILES = [
  'dist/config.js',
  'dist/core/keybindings.js',
  'dist/core/extensions/pi-ai-extension-view.js',
  'dist/core/tools/renderers/index.js',
  'dist/modes/interactive/components/custom-entry.js',
]

/** The files to bundle as entries, by name: Pi's entry points as the line's coding agent finds them, and INTERNAL_FILES. */
export function piBundleEntries(line: PiLineInfo): Map<string, string> {
  const entries = PI_CORE_ENTRIES.map((entry) => entryFileFrom(line.packageDir, `${line.scope}/${entry}`))
  const internal = INTERNAL_FILES.map((file) => join(line.packageDir, file))
  const files = [...new Set([...entries, ...internal, ...piTypeBoxFiles(line).values()])].filter((file): file is string => file !== undefined && existsSync(file))
  return new Map(files.map((file, i) => [`entry-${i}`, file]))
}

// What stays out of the bundle, imported from its own file: native addons. TypeBox is bundled, and its entries
// Pi hands to extensions are entries of the bundle, which the extensions' imports of TypeBox get (as in Pi).
const SHARED = /\.node$/

const packageTypes = new Map<string, string | undefined>()

/** The `type` of the package.json nearest `dir`, as Node reads it to tell a .js file's format. */
function packageType(dir: string): string | undefined {
  if (!packageTypes.has(dir)) {
    const file = join(dir, 'package.json')
    const parent = dirname(dir)
    const type = existsSync(file) ? ((JSON.parse(readFileSync(file, 'utf8')) as { type?: string }).type ?? 'commonjs') : parent === dir ? undefined : packageType(parent)
    packageTypes.set(dir, type)
  }
  return packageTypes.get(dir)
}

const isCommonJs = (id: string) => id.endsWith('.cjs') || (id.endsWith('.js') && packageType(dirname(id)) !== 'module')

/**
 * A module's code, made to run from the bundle as from its own file: `import.meta.url` (and an ES module's
 * dirname and filename, a CommonJS module's `__dirname` and `__filename`) name the file it came from.
 */
function inPlace(code: string, id: string): string | null {
  const file = JSON.stringify(id)
  const dir = JSON.stringify(dirname(id))
  let placed = code
  if (code.includes('import.meta.')) {
    placed = placed
      .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(id).href))
      .replace(/\bimport\.meta\.dirname\b/g, dir)
      .replace(/\bimport\.meta\.filename\b/g, file)
  }
  if (isCommonJs(id) && /\b__(dirname|filename)\b/.test(code)) {
    placed = `var __dirname = ${dir}, __filename = ${file};\n${placed}`
  }
  return placed === code ? null : placed
}

// The coding agent compiles TypeBox validators as its modules load (models.json, themes, keybindings: about
// 30 ms of every worker's import on Node 24), which few test files use. Its own imports of TypeBox's Compile
// get one that compiles on first use; everything else, an extension's TypeBox included, gets TypeBox's.
const LAZY_COMPILE = '\0vitest-environment-pi:lazy-compile'

function lazyCompile(compileEntry: string): string {
  const from = JSON.stringify(compileEntry)
  return `import { Compile as compileNow } from ${from};
export * from ${from};
export function Compile(...args) {
  let validator;
  const compiled = () => (validator ??= compileNow(...args));
  return new Proxy({}, {
    get(_, key) {
      const target = compiled();
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    has: (_, key) => Reflect.has(compiled(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(compiled()),
  });
}
`
}

const digest = (text: string | Buffer) => createHash('sha256').update(text).digest('hex').slice(0, 16)

/** The node_modules directory holding the line's packages: the bundle lives in its `.cache`, so Vite and Vitest treat it as a dependency. */
function nodeModulesOf(line: PiLineInfo): string {
  const at = line.packageDir.lastIndexOf(`${sep}node_modules${sep}`)
  if (at < 0) throw new Error(`${line.packageName} is not in a node_modules directory (${line.packageDir})`)
  return line.packageDir.slice(0, at + `${sep}node_modules`.length)
}

/** Whether the bundle in `dir` was built from the files as they are now. */
function upToDate(dir: string, line: PiLineInfo): PiBundleManifest | undefined {
  const file = join(dir, PI_BUNDLE_MANIFEST)
  if (!existsSync(file)) return undefined
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as PiBundleManifest
  if (manifest.line.packageDir !== line.packageDir || manifest.line.version !== line.version) return undefined
  for (const [input, hash] of Object.entries(manifest.inputs)) {
    if (!existsSync(input) || digest(readFileSync(input)) !== hash) return undefined
  }
  return manifest
}

type Rolldown = typeof import('rolldown')

async function build(line: PiLineInfo, outDir: string): Promise<PiBundleManifest> {
  const { rolldown } = (await import('rolldown')) as Rolldown
  const names = piBundleEntries(line)
  const compileEntry = piTypeBoxFiles(line).get('typebox/compile')
  const codingAgentFiles = join(line.packageDir, 'dist') + sep
  const inputs: Record<string, string> = {}
  const bundle = await rolldown({
    input: Object.fromEntries(names),
    platform: 'node',
    logLevel: 'silent',
    // As Node's own `import` resolves, so a dependency imported by path is the file Node would load.
    resolve: { conditionNames: ['node', 'import', 'default'], mainFields: ['main'] },
    plugins: [
      {
        name: 'vitest-environment-pi:pi-only',
        async resolveId(source, importer, options) {
          if (importer === undefined || source.startsWith('\0') || source.startsWith('node:')) return null
          const resolved = await this.resolve(source, importer, { ...options, skipSelf: true })
          if (resolved !== null && resolved.id === compileEntry && importer.startsWith(codingAgentFiles)) return LAZY_COMPILE
          if (resolved === null || resolved.external || !SHARED.test(resolved.id)) return resolved
          return { id: pathToFileURL(resolved.id).href, external: true }
        },
        load(id) {
          return id === LAZY_COMPILE && compileEntry !== undefined ? lazyCompile(compileEntry) : null
        },
        transform(code, id) {
          // Files only: the bundler's own runtime passes here too.
          if (!isAbsolute(id) || !existsSync(id)) return null
          inputs[id] = digest(readFileSync(id))
          return inPlace(code, id)
        },
      },
    ],
  })
  try {
    // .mjs: Node would otherwise read each file once more to tell its format, as no package.json says it.
    // ASCII alone, comments left out: a file with one character beyond ASCII is read into a two-byte string,
    // slower to decode, hold and compile (7–10 % of Pi's import).
    const { output } = await bundle.write({
      dir: outDir,
      format: 'esm',
      charset: 'ascii',
      comments: false,
      entryFileNames: '[name].mjs',
      chunkFileNames: 'chunks/[name]-[hash].mjs',
      codeSplitting: { groups: [{ name: PI_COMPACTION_CHUNK, test: COMPACTION_MODULES, includeDependenciesRecursively: false }] },
    })
    const entries: Record<string, string> = {}
    for (const chunk of output) {
      if (chunk.type === 'chunk' && chunk.isEntry) entries[names.get(chunk.name)!] = chunk.fileName
    }
    return { line: { packageDir: line.packageDir, version: line.version }, entries, inputs }
  } finally {
    await bundle.close()
  }
}

/**
 * The directory of an up-to-date bundle of `line`, built if there is none: under `<node_modules>/.cache`, in
 * a directory named by the line, this builder and the bundler's version. Built in a directory of its own and renamed
 * into place, so two runs starting at once each see a whole bundle (the first rename wins, the other's is
 * removed). A change to any file the bundle came from rebuilds it; nothing expires by time. A build removes
 * what no run can use any more (pruneBundles).
 */
export async function ensurePiBundle(line: PiLineInfo): Promise<string> {
  const require = createRequire(import.meta.url)
  // This file is how the bundle is built: a change to it (a new version of the harness) builds anew.
  const builder = readFileSync(BUILDER_FILE)
  const rolldownVersion = (JSON.parse(readFileSync(require.resolve('rolldown/package.json'), 'utf8')) as { version: string }).version
  const root = join(nodeModulesOf(line), '.cache', 'vitest-environment-pi', 'pi-bundle')
  const key = `${bundlePrefix(line.packageName)}${line.version}-${digest(`${line.packageDir}\n${digest(builder)}\n${rolldownVersion}`)}`
  const dir = join(root, key)
  if (upToDate(dir, line)) return dir
  const building = join(root, `${BUILDING}${process.pid}-${randomUUID()}`)
  mkdirSync(building, { recursive: true })
  try {
    const manifest: PiBundleManifest = { ...(await build(line, building)), builder: BUILDER_FILE }
    writeFileSync(join(building, PI_BUNDLE_MANIFEST), JSON.stringify(manifest))
    // An outdated bundle goes first; a whole one another run just renamed into place stays.
    if (existsSync(dir) && !upToDate(dir, line)) rmSync(dir, { recursive: true, force: true })
    try {
      renameSync(building, dir)
    } catch (error) {
      if (!upToDate(dir, line)) throw error
    }
    pruneBundles(root, key, line)
    return dir
  } finally {
    rmSync(building, { recursive: true, force: true })
  }
}

const bundlePrefix = (packageName: string) => `${packageName.replace('/', '+')}@`
const BUILDING = '.building-'
const BUILDER_FILE = fileURLToPath(import.meta.url)

/**
 * Removes, beside the bundle `kept` just built, what no run can use any more: the bundles of this package at
 * another version, or built by this same copy of the harness before it (or the bundler) changed; and the build
 * dirs of processes that died building. One node_modules holds one version of the package and one copy of the
 * harness at a path, so only a run started before the install could still name such a bundle, and that run is
 * on files no longer installed. The bundles of another package (the other line, installed beside) and those
 * another copy of the harness built (packages of a monorepo may each have their own) stay. Best effort: what
 * cannot be read or removed stays.
 */
function pruneBundles(root: string, kept: string, line: PiLineInfo): void {
  const prefix = bundlePrefix(line.packageName)
  for (const name of readdirSync(root)) {
    const building = name.startsWith(BUILDING) ? /^(\d+)-/.exec(name.slice(BUILDING.length)) : null
    const stale = building !== null ? !alive(Number(building[1])) : name !== kept && name.startsWith(prefix) && outgrown(join(root, name), line)
    try {
      if (stale) rmSync(join(root, name), { recursive: true, force: true })
    } catch {
      // Another user's, or in use where the system forbids removing it: it stays, as before.
    }
  }
}

/** Whether the bundle in `dir` is of another version of the line's package, or this copy of the harness built it. */
function outgrown(dir: string, line: PiLineInfo): boolean {
  let manifest: Partial<PiBundleManifest>
  try {
    manifest = JSON.parse(readFileSync(join(dir, PI_BUNDLE_MANIFEST), 'utf8')) as Partial<PiBundleManifest>
  } catch {
    return false
  }
  const version = manifest.line?.version
  return typeof version === 'string' && (version !== line.version || manifest.builder === BUILDER_FILE)
}

// Signal 0 checks the process is there without signalling it; EPERM: there, another user's.
function alive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
