// What the installed copy of a package lacks that its source has: files the tarball left out, modules it
// cannot find, dependencies it does not declare, exports that do not resolve. Each problem is a sentence
// that says what to change.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import type { LoadedPackage } from '../pi/load-package.js'
import { messageOf } from '../shared/errors.js'
import { runBounded } from './runner.js'

export interface PackageJson {
  name?: string
  version?: string
  main?: string
  exports?: unknown
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  pi?: Record<string, unknown>
}

export function readPackageJson(dir: string): PackageJson {
  const file = join(dir, 'package.json')
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    throw new Error(`packageDir must be a directory with a package.json; ${file} cannot be read`)
  }
  try {
    return JSON.parse(text) as PackageJson
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${messageOf(error)}`)
  }
}

export interface InstalledPackage {
  /** The package as the user wrote it. */
  packageDir: string
  /** The package as npm installed it from the tarball. */
  installedDir: string
  /** The installed copy's package.json. */
  installed: PackageJson
  /** The project it was installed into. */
  projectDir: string
}

/** What is wrong with the installed package, once Pi's loader has loaded it. */
export async function installProblems(where: InstalledPackage, loaded: LoadedPackage, signal: AbortSignal | undefined): Promise<string[]> {
  const { packageDir, installedDir, installed, projectDir } = where
  const problems: string[] = []
  for (const entry of missingManifestEntries(installed, installedDir)) {
    const inSource = existsSync(join(packageDir, entry.path))
    problems.push(
      `the pi manifest lists ${entry.kind} "${entry.path}", which is not in the installed package` +
        (inSource ? ' (it exists in packageDir: add it to "files" in package.json)' : ''),
    )
  }
  for (const error of loaded.extensionErrors) problems.push(`${error.path}: ${explainLoadError(error.error, installed, packageDir, installedDir)}`)
  for (const error of loaded.skillErrors) problems.push(`skill ${error.path}: ${error.error}`)
  problems.push(...(await unresolvedExports(installed, projectDir, signal)))
  return problems
}

/** Manifest paths (not globs or patterns) that the tarball left out: Pi skips them without a word. */
export function missingManifestEntries(installed: PackageJson, installedDir: string): { kind: string; path: string }[] {
  const missing: { kind: string; path: string }[] = []
  const kinds: Record<string, string> = { extensions: 'extension', skills: 'skill', prompts: 'prompt', themes: 'theme' }
  for (const [key, kind] of Object.entries(kinds)) {
    const entries = installed.pi?.[key]
    if (!Array.isArray(entries)) continue
    for (const entry of entries) {
      if (typeof entry !== 'string' || /[*?[{]/.test(entry) || /^[!+-]/.test(entry)) continue
      if (!existsSync(resolve(installedDir, entry))) missing.push({ kind, path: relative(installedDir, resolve(installedDir, entry)) })
    }
  }
  return missing
}

/** Pi's message, first line only, with the likely cause when a module is missing from the install. */
function explainLoadError(error: string, installed: PackageJson, packageDir: string, installedDir: string): string {
  const [first = error] = error.split('\n')
  const missing = /Cannot find (?:module|package) '([^']+)'/.exec(first)?.[1]
  if (!missing) return first
  if (missing.startsWith('.')) {
    // Node names the importing file first in the require stack.
    const importer = /Require stack:\n- (.+)/.exec(error)?.[1]
    if (!importer) return first
    const inPackage = relative(installedDir, resolve(dirname(importer), missing))
    const candidates = [inPackage, `${inPackage}.js`, `${inPackage}.ts`]
    const inSource = candidates.find((candidate) => existsSync(join(packageDir, candidate)))
    return inSource ? `${first} (${inSource} exists in packageDir but is not in the tarball: add it to "files" in package.json)` : first
  }
  const name = missing.startsWith('@') ? missing.split('/').slice(0, 2).join('/') : missing.split('/')[0]!
  const declared = { ...installed.dependencies, ...installed.optionalDependencies, ...installed.peerDependencies }
  return Object.hasOwn(declared, name) ? first : `${first} ("${name}" is not in the package's dependencies)`
}

/** Every path `exports` (or `main`) promises, resolved from a consumer project as Node resolves it. */
async function unresolvedExports(installed: PackageJson, projectDir: string, signal: AbortSignal | undefined): Promise<string[]> {
  const name = installed.name!
  const specifiers = exportedSpecifiers(installed)
  if (specifiers.length === 0) return []
  const script = [
    "import { existsSync } from 'node:fs'",
    "import { fileURLToPath } from 'node:url'",
    `for (const specifier of ${JSON.stringify(specifiers)}) {`,
    '  let problem',
    '  try {',
    '    const url = import.meta.resolve(specifier)',
    "    if (url.startsWith('file:') && !existsSync(fileURLToPath(url))) problem = `resolves to ${fileURLToPath(url)}, which is not in the installed package`",
    '  } catch (error) {',
    '    problem = `does not resolve: ${error.message}`',
    '  }',
    '  if (problem) console.log(JSON.stringify({ specifier, problem }))',
    '}',
  ].join('\n')
  const result = await runBounded({ command: process.execPath, args: ['--input-type=module', '-e', script], cwd: projectDir, timeoutMs: 30_000, signal })
  if (result.status !== 'passed') return [`resolving the exports of ${name} failed (${result.status}):\n${result.outputTail}`]
  return result.outputTail
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { specifier: string; problem: string })
    .map(({ specifier, problem }) => `import "${specifier}" from a project that installed it ${problem.replace(` imported from ${projectDir}/[eval1]`, '')}`)
}

function exportedSpecifiers(installed: PackageJson): string[] {
  const name = installed.name!
  const { exports } = installed
  if (exports === undefined || exports === null) return installed.main ? [name] : []
  if (typeof exports === 'string' || Array.isArray(exports)) return [name]
  const keys = Object.keys(exports as object)
  // An object of conditions ("import", "default", ...) describes the root entry only.
  if (!keys.some((key) => key.startsWith('.'))) return [name]
  return keys
    .filter((key) => key.startsWith('.') && !key.includes('*') && key !== './package.json' && (exports as Record<string, unknown>)[key] !== null)
    .map((key) => (key === '.' ? name : `${name}/${key.slice(2)}`))
}
