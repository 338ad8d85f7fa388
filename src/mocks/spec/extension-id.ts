import { statSync } from 'node:fs'
import { basename, dirname, extname, resolve } from 'node:path'
import { readJsonFile } from './load.js'

const INDEX_FILE = /^index\.[cm]?[jt]s$/

/**
 * The id a mock spec's `extension_id` must equal for a given extension, decided in this order:
 * 1. A directory containing a package.json with a `pi` field and a string `name`, or a file directly
 *    inside such a directory: the package `name` (`my-pkg/` and `my-pkg/index.ts` → `@scope/my-pkg`).
 * 2. Any other directory: its own name (`plan-mode/` → `plan-mode`).
 * 3. An `index.ts`/`index.js` (also .mts/.cts/.mjs/.cjs) file: its directory's name (`plan-mode/index.ts` → `plan-mode`).
 * 4. Any other file: its name without the last extension (`/a/b/permission-gate.ts` → `permission-gate`).
 * Only the immediate directory is checked for package.json, never its ancestors; a path that does not exist is treated as a file.
 */
export function extensionIdFor(pathOrPackageDir: string): string {
  const path = resolve(pathOrPackageDir)
  if (isDirectory(path)) return piPackageName(path) ?? basename(path)
  const dir = dirname(path)
  const packageName = piPackageName(dir)
  if (packageName !== undefined) return packageName
  const file = basename(path)
  if (INDEX_FILE.test(file)) return basename(dir)
  return basename(file, extname(file))
}

function piPackageName(dir: string): string | undefined {
  const manifestPath = resolve(dir, 'package.json')
  if (!isFile(manifestPath)) return undefined
  const manifest = readJsonFile(manifestPath)
  if (typeof manifest !== 'object' || manifest === null) return undefined
  const { name, pi } = manifest as { name?: unknown; pi?: unknown }
  return pi !== undefined && typeof name === 'string' && name !== '' ? name : undefined
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false
}
