// Which Pi runs the sessions: Pi changed its npm scope, and either line may be the installed peer.
// This module only reads package.json files; the chosen line's adapter is the one that imports Pi.
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join } from 'node:path'

export interface PiLineInfo {
  /** The npm scope of the line's packages. */
  scope: '@earendil-works' | '@mariozechner'
  /** `@<scope>/pi-coding-agent`. */
  packageName: string
  /** The installed version of the coding agent. */
  version: string
  /** The directory of the installed coding agent package. */
  packageDir: string
  /** The Node versions the line supports (`engines.node`). */
  node: string
}

/** The lines in the order the harness prefers them: the current line first. */
export const PI_SCOPES = ['@earendil-works', '@mariozechner'] as const

/** Forces a line (a package name, e.g. `@mariozechner/pi-coding-agent`) when both are installed. */
export const PI_PACKAGE_ENV = 'VITEST_PI_PACKAGE'

/** Pi's entry points that extensions import by name (Pi's loader answers each with its own copy). */
export const PI_CORE_ENTRIES = [
  'pi-coding-agent',
  'pi-agent-core',
  'pi-tui',
  'pi-ai',
  'pi-ai/compat',
  'pi-ai/models',
  'pi-ai/oauth',
  'pi-ai/providers/all',
] as const

/**
 * The TypeBox names Pi's loader answers with the coding agent's own TypeBox, on both lines (the old name
 * too): each name and the entry it gets.
 */
export const PI_TYPEBOX: Readonly<Record<string, string>> = Object.fromEntries(
  ['', '/compile', '/value'].flatMap((path) => [
    [`typebox${path}`, `typebox${path}`],
    [`@sinclair/typebox${path}`, `typebox${path}`],
  ]),
)

/** The file of each TypeBox entry Pi hands to extensions (PI_TYPEBOX), as the coding agent finds TypeBox. */
export function piTypeBoxFiles(line: PiLineInfo): Map<string, string> {
  const files = new Map<string, string>()
  for (const entry of new Set(Object.values(PI_TYPEBOX))) {
    const file = entryFileFrom(line.packageDir, entry)
    if (file !== undefined) files.set(entry, file)
  }
  return files
}

const codingAgent = (scope: string) => `${scope}/pi-coding-agent`

// package.json, found as Node finds the package from here (its exports may not list package.json).
function installed(scope: string): PiLineInfo | undefined {
  const name = codingAgent(scope)
  for (const dir of createRequire(import.meta.url).resolve.paths(name) ?? []) {
    const file = join(dir, name, 'package.json')
    if (!existsSync(file)) continue
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as { version: string; engines?: { node?: string } }
    return { scope: scope as PiLineInfo['scope'], packageName: name, version: manifest.version, packageDir: dirname(file), node: manifest.engines?.node ?? '*' }
  }
  return undefined
}

/** Whether `version` satisfies a `>=x.y.z` range (the only form Pi's `engines.node` uses). */
export function satisfiesNode(range: string, version = process.versions.node): boolean {
  const minimum = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim())
  if (!minimum) return true
  const have = version.split('.').map(Number)
  for (let i = 0; i < 3; i++) {
    const want = Number(minimum[i + 1] ?? 0)
    if (have[i]! !== want) return have[i]! > want
  }
  return true
}

const HINT = `Install ${codingAgent('@earendil-works')} (Node >=22.19) or ${codingAgent('@mariozechner')}@0.73 (Node >=20.6) next to vitest-environment-pi.`

/**
 * The line to run: the one named by VITEST_PI_PACKAGE, else the first installed line that supports this
 * Node (a line that cannot run here is passed over, so both may be installed side by side).
 */
export function findPiLine(forced = process.env[PI_PACKAGE_ENV] || undefined): PiLineInfo {
  return choosePiLine(
    PI_SCOPES.map(installed).filter((line) => line !== undefined),
    forced,
  )
}

/** findPiLine's choice among the lines `found` installed, on Node `node`. */
export function choosePiLine(found: PiLineInfo[], forced?: string, node = process.versions.node): PiLineInfo {
  if (forced !== undefined) {
    const scope = PI_SCOPES.find((s) => codingAgent(s) === forced)
    if (!scope) throw new Error(`${PI_PACKAGE_ENV}=${forced} names no Pi line: use ${PI_SCOPES.map(codingAgent).join(' or ')}.`)
    const line = found.find((l) => l.scope === scope)
    if (!line) throw new Error(`${PI_PACKAGE_ENV}=${forced}, but ${forced} is not installed. ${HINT}`)
    if (!satisfiesNode(line.node, node)) throw new Error(`${forced}@${line.version} needs Node ${line.node}; this is Node ${node}.`)
    return line
  }
  const usable = found.find((line) => satisfiesNode(line.node, node))
  if (usable) return usable
  if (found.length === 0) throw new Error(`vitest-environment-pi found no Pi: neither ${PI_SCOPES.map(codingAgent).join(' nor ')} is installed. ${HINT}`)
  const needs = found.map((line) => `${line.packageName}@${line.version} needs Node ${line.node}`).join('; ')
  throw new Error(`No installed Pi runs on Node ${node}: ${needs}. ${HINT}`)
}

/** The directory of `name` (a package) as Node finds it from `dir`: beside it, or in a node_modules above. */
function packageDirFrom(dir: string, name: string): string | undefined {
  // From the real path, as Node resolves a module's imports: a package linked into node_modules finds its
  // dependencies beside its real folder, not beside the link.
  const from = existsSync(dir) ? realpathSync(dir) : dir
  for (const base of createRequire(join(from, 'package.json')).resolve.paths(name) ?? []) {
    if (existsSync(join(base, name, 'package.json'))) return join(base, name)
  }
  return undefined
}

// What Pi's own loader gives an extension for pi-ai's root and compat entries: since 1.5 a view with the
// old global API and TypeBox's re-exports (a file of the coding agent); from 0.80, when pi-ai split its
// old global API into a compat entry, that entry; before, pi-ai's root itself.
const PI_AI_EXTENSION_VIEW = 'dist/core/extensions/pi-ai-extension-view.js'

function piAiRootFor(line: PiLineInfo): string {
  const view = join(line.packageDir, PI_AI_EXTENSION_VIEW)
  if (existsSync(view)) return view
  const piAi = `${line.scope}/pi-ai`
  // pi-ai as the coding agent finds it: beside it, or in its own node_modules.
  const dir = packageDirFrom(line.packageDir, piAi)
  if (dir === undefined) return piAi
  const { exports } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> }
  return exports?.['./compat'] === undefined ? piAi : `${piAi}/compat`
}

/**
 * Each Pi entry point, under either line's name, mapped to what Pi's own loader gives an extension on
 * the running line: its package name (or, for pi-ai's root, what piAiRootFor says). Entries that
 * already name themselves are left out.
 */
export function piLineAliases(line: PiLineInfo): Record<string, string> {
  const piAiRoot = piAiRootFor(line)
  const aliases: Record<string, string> = {}
  for (const scope of PI_SCOPES) {
    for (const entry of PI_CORE_ENTRIES) {
      // The view stands for the compat entry too; a compat entry stands only for the root.
      const viewed = entry === 'pi-ai' || (entry === 'pi-ai/compat' && isAbsolute(piAiRoot))
      const target = viewed ? piAiRoot : `${line.scope}/${entry}`
      if (target !== `${scope}/${entry}`) aliases[`${scope}/${entry}`] = target
    }
  }
  return aliases
}

type Exported = string | { import?: Exported; default?: Exported } | undefined

/** The file Node's `import` takes from an `exports` value (a string, or `import`/`default` conditions, nested). */
function importTarget(target: Exported): string | undefined {
  return typeof target === 'string' || target === undefined ? target : importTarget(target.import ?? target.default)
}

/**
 * The file Node imports for `specifier` (a package name, with or without a subpath) from `fromDir`: the
 * package found as Node finds it, its `exports` entry under the `import` condition. Undefined when the
 * package is not installed there or does not export the subpath.
 */
export function entryFileFrom(fromDir: string, specifier: string): string | undefined {
  const parts = specifier.split('/')
  const name = parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/')
  const subpath = ['.', ...parts.slice(name.split('/').length)].join('/')
  const dir = packageDirFrom(fromDir, name)
  if (dir === undefined) return undefined
  const { exports, main } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports?: string | Record<string, Exported>; main?: string }
  if (exports === undefined) return subpath === '.' ? join(dir, main ?? 'index.js') : join(dir, subpath)
  const file = typeof exports === 'string' ? (subpath === '.' ? exports : undefined) : importTarget(exports[subpath])
  return file === undefined ? undefined : join(dir, file)
}

/** The file of pi-ai's root entry as the line's coding agent finds pi-ai (an ES module: its `import` export). */
export function piAiEntryOf(line: PiLineInfo): string {
  const name = `${line.scope}/pi-ai`
  const file = entryFileFrom(line.packageDir, name)
  if (file === undefined) throw new Error(`${name} is not installed where ${line.packageName} finds it (${line.packageDir})`)
  return file
}

/**
 * The coding agent's index beside the `pi` command `cli`: in a bundled line (1.x) the bundle's own index, whose
 * modules the command has loaded already; in an unbundled one, the package's index.
 */
export function piIndexBesideCli(cli: string): string {
  return join(dirname(cli), 'index.js')
}

/** The `pi` command of `line`: the file its package.json names as the `pi` bin, as npm links it. */
export function piCliOf(line: PiLineInfo): string {
  const { bin } = JSON.parse(readFileSync(join(line.packageDir, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> }
  const file = typeof bin === 'string' ? bin : bin?.pi
  if (file === undefined) throw new Error(`${line.packageName}@${line.version} declares no "pi" bin in ${join(line.packageDir, 'package.json')}`)
  return join(line.packageDir, file)
}
