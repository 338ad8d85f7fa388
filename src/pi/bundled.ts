// Which file a worker imports for one of Pi's modules: the bundle's, when the run built one (ensurePiBundle,
// named by PI_BUNDLE_ENV), else Pi's own. Every importer of Pi in a worker (the harness, the extensions' aliases,
// Pi's loader for packages) asks here, so there is one copy of Pi.
import { existsSync, readFileSync } from 'node:fs'
import module from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PI_BUNDLE_MANIFEST, type PiBundleManifest } from './bundle.js'
import { entryFileFrom, type PiLineInfo } from './line.js'

/** The bundle's directory, set by the run that built it; workers inherit it. */
export const PI_BUNDLE_ENV = 'VITEST_PI_BUNDLE'

const manifests = new Map<string, PiBundleManifest | undefined>()

/** The bundle named by PI_BUNDLE_ENV, if it was built from `line` (a process started elsewhere may inherit the variable). */
function bundleOf(line: PiLineInfo, dir = process.env[PI_BUNDLE_ENV]): { dir: string; manifest: PiBundleManifest } | undefined {
  if (!dir) return undefined
  if (!manifests.has(dir)) {
    const file = join(dir, PI_BUNDLE_MANIFEST)
    manifests.set(dir, existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PiBundleManifest) : undefined)
  }
  const manifest = manifests.get(dir)
  return manifest && manifest.line.packageDir === line.packageDir && manifest.line.version === line.version ? { dir, manifest } : undefined
}

/** Whether this process imports `line` from a bundle. */
export const usesPiBundle = (line: PiLineInfo): boolean => bundleOf(line) !== undefined

/** The file to import for `file`, one of Pi's: the bundle's entry for it, or the file itself. */
export function piFile(line: PiLineInfo, file: string): string {
  const bundle = bundleOf(line)
  const bundled = bundle?.manifest.entries[file]
  return bundled === undefined ? file : join(bundle!.dir, bundled)
}

let compileCache = false

// The bundle's files are compiled once for every worker of every run: V8's code cache, kept beside them
// (Node 22.1 and later; on Node 20 nothing happens).
function importBundled<T>(line: PiLineInfo, file: string): Promise<T> {
  const bundle = bundleOf(line)
  if (bundle !== undefined && !compileCache) {
    compileCache = true
    ;(module as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache?.(join(bundle.dir, '.compile-cache'))
  }
  return import(pathToFileURL(piFile(line, file)).href) as Promise<T>
}

/** Imports one of the line's entry points (`pi-coding-agent`, `pi-ai/oauth`, …) as the line's coding agent finds it. */
export async function importPiEntry<T>(line: PiLineInfo, entry: string): Promise<T> {
  const file = entryFileFrom(line.packageDir, `${line.scope}/${entry}`)
  if (file === undefined) throw new Error(`${line.scope}/${entry} is not installed where ${line.packageName} finds it (${line.packageDir})`)
  return importBundled<T>(line, file)
}

/** Imports a file of the coding agent (`dist/config.js`), or undefined where this release has none. */
export async function importPiFile<T>(line: PiLineInfo, file: string): Promise<T | undefined> {
  const path = join(line.packageDir, file)
  return existsSync(path) ? importBundled<T>(line, path) : undefined
}
