// Loads an installed Pi package the way Pi itself does (`pi -e <dir>`), and imports extension files the
// way Pi's loader does, so a sandbox sees what a user of the package would see.
import { createRequire } from 'node:module'
import { isAbsolute, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DISCOVER_NOTHING, PI_LINE, PiResourceLoader, PiSettings } from './running-line.js'
import { PI_CORE_ENTRIES, PI_SCOPES, PI_TYPEBOX, piLineAliases } from './line.js'
import { piFile } from './bundled.js'

export interface LoadedPackage {
  /** Extension files Pi loaded, relative to the package directory. */
  extensions: string[]
  /** Tools the package's extensions registered. */
  tools: string[]
  /** Names of the skills Pi found in the package. */
  skills: string[]
  /** Extensions Pi could not load, and conflicts it reported (path relative to the package when inside it). */
  extensionErrors: { path: string; error: string }[]
  /** Skill diagnostics Pi reported as errors. */
  skillErrors: { path: string; error: string }[]
  /** Absolute paths of the loaded extension files, for a session that loads them again. */
  extensionFiles: string[]
}

/**
 * Resolves the package's resources from its package.json `pi` manifest (or its conventional directories)
 * with Pi's own package manager and loads them with Pi's own loader: nothing else is discovered.
 */
export async function loadPiPackage(packageDir: string, options: { cwd: string; agentDir: string }): Promise<LoadedPackage> {
  const loader = new PiResourceLoader({
    cwd: options.cwd,
    agentDir: options.agentDir,
    settingsManager: PiSettings.inMemory(),
    // A local directory source, as `pi -e <dir>` passes it: Pi reads the manifest and loads what it names.
    additionalExtensionPaths: [packageDir],
    ...DISCOVER_NOTHING,
  })
  await loader.reload()
  const shown = (path: string) => (path.startsWith(packageDir) ? relative(packageDir, path) : path)
  const { extensions, errors } = loader.getExtensions()
  const { skills, diagnostics } = loader.getSkills()
  return {
    extensions: extensions.map((extension) => shown(extension.resolvedPath)),
    tools: extensions.flatMap((extension) => [...extension.tools.keys()]),
    skills: skills.map((skill) => skill.name),
    extensionErrors: errors.map((error) => ({ path: shown(error.path), error: error.error })),
    skillErrors: diagnostics.filter((d) => d.type === 'error').map((d) => ({ path: shown(d.path ?? packageDir), error: d.message })),
    extensionFiles: extensions.map((extension) => extension.resolvedPath),
  }
}

// The packages Pi hands to every extension instead of the extension's own copy (Pi's docs/packages.md,
// "Pi bundles core packages"), under either line's name, answered as the running Pi's loader answers them.
const PI_SPECIFIERS = PI_SCOPES.flatMap((scope) => PI_CORE_ENTRIES.map((entry) => `${scope}/${entry}`))

interface Jiti {
  import(id: string): Promise<unknown>
  esmResolve(id: string, options: { try: true }): string | undefined
}
type CreateJiti = (id: string, options: { fsCache: false; moduleCache?: boolean; alias?: Record<string, string> }) => Jiti

/**
 * A module loader (createTestSession's `importModule`) that imports as Pi's extension loader does: through
 * Pi's own jiti (TypeScript and JavaScript alike), each import fresh, with Pi's core packages answered by
 * the host's Pi.
 */
export function piModuleLoader(): (absolutePath: string) => Promise<Record<string, unknown>> {
  const packageJson = join(PI_LINE.packageDir, 'package.json')
  const createJiti = createRequire(packageJson)('jiti') as CreateJiti
  // No cache on disk: jiti's default is `<tmp>/jiti`, or Pi's own node_modules where Pi has one (1.x). A
  // loader may be made outside a session's isolation (which turns Pi's own jiti cache off), and what it
  // compiled would be left there.
  const resolver = createJiti(packageJson, { fsCache: false })
  const lineAliases = piLineAliases(PI_LINE)
  const alias: Record<string, string> = {}
  const targets = [...PI_SPECIFIERS.map((s): [string, string] => [s, lineAliases[s] ?? s]), ...Object.entries(PI_TYPEBOX)]
  for (const [specifier, target] of targets) {
    const resolved = isAbsolute(target) ? target : resolver.esmResolve(target, { try: true })
    // Pi's modules are the worker's: the bundle's files where the run built one.
    if (resolved) alias[specifier] = piFile(PI_LINE, resolved.startsWith('file:') ? fileURLToPath(resolved) : resolved)
  }
  const jiti = createJiti(packageJson, { fsCache: false, moduleCache: false, alias })
  return async (absolutePath) => (await jiti.import(absolutePath)) as Record<string, unknown>
}
