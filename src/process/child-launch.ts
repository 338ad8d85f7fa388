// What the child is started with: the `process` option's parts, the extension files and packages it loads,
// the model it is told to use, and its command line as a user would type it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { missingManifestEntries, readPackageJson, type PackageJson } from '../project/install-problems.js'
import { messageOf } from '../shared/errors.js'
import type { ProcessOptions } from '../session/options.js'
import type { SessionPlan } from '../session/plan.js'

/** How long the child may take from spawn to its first answer (Pi loads, extensions load, session_start). */
export const STARTUP_TIMEOUT_MS = 60_000
/** How long one turn (run, command) may take before it fails naming what was running. */
export const TURN_TIMEOUT_MS = 60_000
/** The `process` option as its parts, defaults applied. */
export function processSettings(option: boolean | ProcessOptions | undefined) {
  const given = typeof option === 'object' ? option : {}
  return {
    argv: given.argv ?? [],
    packages: given.packages ?? [],
    env: given.env ?? {},
    startupTimeout: given.startupTimeout ?? STARTUP_TIMEOUT_MS,
    turnTimeout: given.turnTimeout ?? TURN_TIMEOUT_MS,
  }
}

/** Extension files, resolved: a factory function cannot cross into another process. */
export function extensionFiles(plan: SessionPlan): string[] {
  return (plan.options.extensions ?? []).map((entry, index) => {
    if (typeof entry !== 'string') {
      throw new TypeError(`createTestSession({ process: true }): extensions[${index}] is a factory function; a pi process loads extensions from files. Give its path instead.`)
    }
    return resolve(plan.root, entry)
  })
}

/**
 * The packages' directories, resolved, each checked against its manifest: Pi skips a listed extension
 * that is not there without a word, so the test fails naming it instead.
 */
export function packageDirs(root: string, packages: readonly string[]): string[] {
  return packages.map((entry, index) => {
    const dir = resolve(root, entry)
    const where = `createTestSession({ process: { packages } }): packages[${index}] (${dir})`
    let manifest: PackageJson
    try {
      manifest = readPackageJson(dir)
    } catch (error) {
      throw new Error(`${where}: ${messageOf(error)}`, { cause: error })
    }
    const missing = missingManifestEntries(manifest, dir)
    if (missing.length > 0) {
      const listed = missing.map(({ kind, path }) => `${kind} "${path}"`).join(', ')
      throw new Error(`${where}: the pi manifest of ${manifest.name ?? 'the package'} lists ${listed}, which ${missing.length === 1 ? 'is' : 'are'} not in the package`)
    }
    return dir
  })
}

/** Lists the packages in the session's own settings (its temp agent dir), where `pi install` records them. */
export function listPackages(agentDir: string, packages: readonly string[]): void {
  mkdirSync(agentDir, { recursive: true })
  const file = join(agentDir, 'settings.json')
  // Over what the test seeded there (`home: { '.pi/agent/settings.json': … }`), as `pi install` adds to it.
  const seeded = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { packages?: unknown[] }) : {}
  writeFileSync(file, `${JSON.stringify({ ...seeded, packages: [...(seeded.packages ?? []), ...packages] }, null, 2)}\n`)
}

export function childModel({ model }: SessionPlan) {
  const { id, name, api, provider, reasoning, input, contextWindow, maxTokens } = model
  return { id, name, api, provider, reasoning, input: [...input], contextWindow, maxTokens }
}

/**
 * The command line after `pi --mode rpc -e <harness>`: as a user would type it for the same session. Pi keeps
 * its session file, as for users, in the session's temp agent dir: saveSession() copies it, resume() reads one.
 */
export function childArgs(plan: SessionPlan, extensions: string[], argv: readonly string[]): string[] {
  const { options, model } = plan
  const args = ['--provider', model.provider, '--model', model.id]
  for (const path of extensions) args.push('-e', path)
  if (options.tools) args.push('--tools', options.tools.join(','))
  if (options.systemPrompt !== undefined) args.push('--system-prompt', options.systemPrompt)
  for (const [name, value] of Object.entries(options.flags ?? {})) {
    if (value === true) args.push(`--${name}`)
    else if (value !== false) args.push(`--${name}`, value)
  }
  return [...args, ...argv]
}
