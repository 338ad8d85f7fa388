// Loads an installed Pi package the way Pi itself does (`pi -e <dir>`), and imports extension files the
// way Pi's loader does, so a sandbox sees what a user of the package would see.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { DefaultResourceLoader, SettingsManager } from '@mariozechner/pi-coding-agent'
import type { ModuleLoader } from '../module-loader.js'
import { PI_PACKAGE } from './index.js'

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
  const loader = new DefaultResourceLoader({
    cwd: options.cwd,
    agentDir: options.agentDir,
    settingsManager: SettingsManager.inMemory(),
    // A local directory source, as `pi -e <dir>` passes it: Pi reads the manifest and loads what it names.
    additionalExtensionPaths: [packageDir],
    noExtensions: true,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
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
// "Pi bundles core packages"); Pi's loader aliases each to the Pi that loads the extension.
const PI_CORE_SPECIFIERS = [
  '@mariozechner/pi-coding-agent',
  '@mariozechner/pi-agent-core',
  '@mariozechner/pi-ai',
  '@mariozechner/pi-ai/oauth',
  '@mariozechner/pi-tui',
  'typebox',
  'typebox/compile',
  'typebox/value',
]
// Pi answers the old TypeBox name with the new package.
const LEGACY_TYPEBOX: Record<string, string> = {
  '@sinclair/typebox': 'typebox',
  '@sinclair/typebox/compile': 'typebox/compile',
  '@sinclair/typebox/value': 'typebox/value',
}

interface Jiti {
  import(id: string): Promise<unknown>
  esmResolve(id: string, options: { try: true }): string | undefined
}
type CreateJiti = (id: string, options?: { moduleCache?: boolean; alias?: Record<string, string> }) => Jiti

/** The package.json of the Pi this harness runs, found as Node finds it from here. */
function piPackageJson(): string {
  const require = createRequire(import.meta.url)
  for (const dir of require.resolve.paths(PI_PACKAGE) ?? []) {
    const candidate = join(dir, PI_PACKAGE, 'package.json')
    if (existsSync(candidate)) return candidate
  }
  throw new Error(`${PI_PACKAGE} is not resolvable from ${import.meta.url}`)
}

/**
 * A module loader that imports as Pi's extension loader does: through Pi's own jiti (TypeScript and
 * JavaScript alike), each import fresh, with Pi's core packages answered by the host's Pi.
 */
export function piModuleLoader(): ModuleLoader {
  const packageJson = piPackageJson()
  const piRequire = createRequire(packageJson)
  const createJiti = piRequire('jiti') as CreateJiti
  const resolver = createJiti(packageJson)
  const alias: Record<string, string> = {}
  for (const specifier of PI_CORE_SPECIFIERS) {
    const resolved = resolver.esmResolve(specifier, { try: true })
    if (resolved) alias[specifier] = resolved
  }
  for (const [legacy, current] of Object.entries(LEGACY_TYPEBOX)) if (alias[current]) alias[legacy] = alias[current]
  const jiti = createJiti(packageJson, { moduleCache: false, alias })
  return async (absolutePath) => (await jiti.import(absolutePath)) as Record<string, unknown>
}
