// Loads the package's extensions as Pi does, outside Vitest: which files Pi loads from the manifest,
// and what each registers, from a real session with the extension loaded through Pi's own jiti.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join, sep } from 'node:path'
import { createTestSession, type TestSession, type TestSessionOptions } from '../session/create.js'
import { settleTempDirs } from '../isolation/temp-dirs.js'
import { BUILTIN_TOOL_NAMES, PI_LINE } from '../pi/index.js'
import { loadPiPackage } from '../pi/load-package.js'
import { piModuleLoader } from '../pi/load-package.js'
import { messageOf } from '../shared/errors.js'

export interface FoundExtensions {
  /** `./`-relative paths of the extension files Pi loads from the package. */
  readonly files: string[]
  /** Extensions Pi could not load, with Pi's reason. */
  readonly errors: { path: string; error: string }[]
}

export interface Registrations {
  readonly tools: string[]
  readonly commands: string[]
}

/** The running Pi line, as the messages name it: `@earendil-works/pi-coding-agent 1.6.0`. */
export const runningPi = () => `${PI_LINE.packageName} ${PI_LINE.version}`

/** As `pi -e <dir>` would: the manifest's `pi.extensions` (or Pi's conventions), else index.ts / index.js. */
export async function findExtensions(dir: string): Promise<FoundExtensions> {
  const agentDir = mkdtempSync(join(tmpdir(), 'vitest-pi-cli-'))
  try {
    const loaded = await loadPiPackage(dir, { cwd: dir, agentDir })
    // A folder Pi loaded (the package itself, without a manifest) is its index file.
    const files = loaded.extensions
      .filter((file) => !file.startsWith('..') && !isAbsolute(file))
      .map((file) => (statSync(join(dir, file)).isDirectory() ? indexIn(dir, file) : file))
      .filter((file): file is string => file !== undefined)
    if (files.length === 0) {
      const index = indexIn(dir, '')
      if (index) files.push(index)
    }
    return { files: files.map((file) => `./${file.split(sep).join('/')}`), errors: loaded.extensionErrors }
  } finally {
    rmSync(agentDir, { recursive: true, force: true })
  }
}

function indexIn(dir: string, folder: string): string | undefined {
  return ['index.ts', 'index.js', 'index.mts', 'index.mjs', 'index.cjs'].map((name) => join(folder, name)).find((file) => existsSync(join(dir, file)))
}

/** A session of the harness in this process, its extensions imported as Pi's loader imports them. */
export async function withSession<T>(dir: string, options: TestSessionOptions, use: (t: TestSession) => Promise<T>): Promise<T> {
  const t = await createTestSession({ root: dir, importModule: piModuleLoader(), ...options })
  try {
    return await use(t)
  } finally {
    await t.dispose()
    await settleTempDirs()
  }
}

/** The tools (beyond Pi's built-ins) and commands the extension registers, or why it could not be loaded. */
export async function registrationsOf(dir: string, file: string): Promise<Registrations | { error: string }> {
  try {
    return await withSession(dir, { extensions: [file] }, async (t) => ({
      tools: t.session.getAllTools().map((tool) => tool.name).filter((name) => !BUILTIN_TOOL_NAMES.includes(name)),
      commands: t.session.extensionRunner.getRegisteredCommands().map((command) => command.invocationName),
    }))
  } catch (error) {
    return { error: messageOf(error) }
  }
}

