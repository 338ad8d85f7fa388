// What init and codegen learn from an extension package without asking: its manifest, module kind,
// language and Pi line. The extension files themselves are found by Pi's own loader (probe.ts).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PI_SCOPES } from '../pi/line.js'
import { CliError, jsonProblem } from './errors.js'

export interface ExtensionProject {
  readonly dir: string
  readonly manifestFile: string
  /** The text of package.json as it is on disk, and its parse. */
  readonly manifestText: string
  readonly manifest: Manifest
  /** `"type": "module"`: .js files are ES modules. Otherwise Vitest's config and the tests get .mts/.mjs names. */
  readonly esm: boolean
  /** A tsconfig.json, TypeScript among the dependencies, or a .ts extension. */
  readonly typescript: boolean
  /** The Pi line package.json names (dependencies of any kind), if it names one and only one. */
  readonly declaredPi: string | undefined
}

export interface Manifest {
  name?: string
  type?: string
  scripts?: Record<string, string>
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  pi?: { extensions?: unknown }
  [field: string]: unknown
}

/** The dependencies of every kind that package.json lists. */
export function dependencyNames(manifest: Manifest): string[] {
  return [manifest.dependencies, manifest.devDependencies, manifest.peerDependencies].flatMap((deps) => Object.keys(deps ?? {}))
}

export function readProject(dir: string): ExtensionProject {
  const manifestFile = join(dir, 'package.json')
  if (!existsSync(manifestFile)) {
    throw new CliError(`${manifestFile}: no package.json here; run the command in the extension package's folder (npm init -y makes one)`)
  }
  const manifestText = readFileSync(manifestFile, 'utf8')
  let manifest: Manifest
  try {
    manifest = JSON.parse(manifestText) as Manifest
  } catch (error) {
    throw jsonProblem(manifestFile, manifestText, error)
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) throw new CliError(`${manifestFile}:1: not a package manifest (a JSON object)`)
  const deps = dependencyNames(manifest)
  const declared = PI_SCOPES.map((scope) => `${scope}/pi-coding-agent`).filter((name) => deps.includes(name))
  const declaredPi = declared.length === 1 ? declared[0] : undefined
  const listed = Array.isArray(manifest.pi?.extensions) ? (manifest.pi.extensions as unknown[]) : []
  const typescript =
    existsSync(join(dir, 'tsconfig.json')) ||
    deps.includes('typescript') ||
    listed.some((entry) => typeof entry === 'string' && /\.[cm]?tsx?$/.test(entry)) ||
    existsSync(join(dir, 'index.ts'))
  return { dir, manifestFile, manifestText, manifest, esm: manifest.type === 'module', typescript, declaredPi }
}

/** The indentation a JSON file uses, so an edit keeps the file's look. */
export function indentOf(text: string): string | number {
  return /^[ \t]+(?=")/m.exec(text)?.[0] ?? 2
}
