// verifySandboxInstall: the package as a user gets it (npm pack, npm install, loaded by Pi), before it is published.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { enterIsolation } from '../isolation/isolation.js'
import type { MockToolHandler } from '../mocks/tools.js'
import type { MockUIOptions } from '../mocks/ui.js'
import { loadPiPackage, piModuleLoader, type LoadedPackage } from '../pi/load-package.js'
import type { Turn } from '../model/script.js'
import { SessionRecords } from '../records/records.js'
import { resolveNpmCommand, runBounded, validateTimeoutMs, type BoundedRunResult } from './runner.js'
import { createTestSession, type TestSession } from '../session/create.js'

export const SANDBOX_STEPS = ['npm pack', 'npm install', 'load', 'expect', 'smoke'] as const
export type SandboxStep = (typeof SANDBOX_STEPS)[number]

export interface SandboxExpect {
  /** How many extension files Pi loads from the package. */
  extensions?: number
  /** Every tool the package registers: a missing one and an unlisted one both fail. */
  tools?: string[]
  /** How many skills Pi finds in the package. */
  skills?: number
}

export interface SandboxSmoke {
  /** As createTestSession's mockTools; the package's own tools normally run for real. */
  mockTools?: Record<string, MockToolHandler>
  mockUI?: MockUIOptions | false
  /** The playbook, run against the installed copy. */
  script: Turn[]
}

export interface SandboxStepEvent {
  step: SandboxStep
  phase: 'start' | 'end'
  /** Set when phase is 'end'. */
  status?: 'passed' | 'failed' | 'skipped'
  durationMs?: number
}

export interface SandboxOptions {
  /** The package directory (with its package.json), not a package name. */
  packageDir: string
  expect?: SandboxExpect
  smoke?: SandboxSmoke
  /** The argv that runs npm, e.g. ['sfw', 'npm']; `pack ...` and `install ...` are appended. Defaults to ['npm']. */
  npmCommand?: readonly string[]
  /**
   * Appended to `npm install`. npm installs the package's peers by default (Pi's loader still answers
   * Pi's core packages with the host's Pi); ['--legacy-peer-deps', '--prefer-offline'] skips them, offline.
   */
  installArgs?: readonly string[]
  /** Merged over process.env for the npm steps (e.g. npm_config_prefer_offline: 'true'). */
  env?: NodeJS.ProcessEnv
  /** Per npm step: an integer from 100 to 600000; defaults to 120000. */
  timeoutMs?: number
  /** Where the temp dirs go (default: the OS temp dir). Keep it outside any project: Node would find its node_modules. */
  tempDir?: string
  signal?: AbortSignal
  /** Called as each step starts and ends, for progress lines. */
  onStep?: (event: SandboxStepEvent) => void
}

export interface SandboxLoaded {
  /** Extension files Pi loaded, relative to the installed package. */
  extensions: string[]
  tools: string[]
  /** Skill names. */
  skills: string[]
  extensionErrors: { path: string; error: string }[]
}

export interface SandboxResult {
  status: 'passed' | 'failed'
  packageName: string
  version: string
  /** The tarball's file name, as `npm pack` wrote it. */
  tarball: string
  loaded: SandboxLoaded
  /** What is wrong with the package, each starting with its step ("load: ...", "expect: ...", "smoke: ..."). */
  problems: string[]
  steps: { step: SandboxStep; status: 'passed' | 'failed' | 'skipped'; durationMs: number }[]
  /** Present when a smoke playbook was given and ran: the session's records. */
  smoke?: { events: SessionRecords }
  durationMs: number
}

/** A step that could not run to its end: npm failed or timed out, or Pi's loader threw. */
export class SandboxError extends Error {
  constructor(
    readonly step: SandboxStep,
    message: string,
    readonly outputTail?: string,
    options?: ErrorOptions,
  ) {
    super(`sandbox ${step}: ${message}`, options)
    this.name = 'SandboxError'
  }
}

interface PackageJson {
  name?: string
  version?: string
  main?: string
  exports?: unknown
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  pi?: Record<string, unknown>
}

/**
 * Packs `packageDir`, installs the tarball into a fresh project, loads it with Pi's own package loader,
 * checks `expect`, and runs the optional smoke playbook against the installed copy. Problems with the
 * package come back as a 'failed' result; a step that cannot run throws a SandboxError.
 */
export async function verifySandboxInstall(options: SandboxOptions): Promise<SandboxResult> {
  const startedAt = performance.now()
  const timeoutMs = validateTimeoutMs(options.timeoutMs)
  const npm = resolveNpmCommand(options.npmCommand)
  const packageDir = resolve(options.packageDir)
  const manifest = readPackageJson(packageDir)
  const packageName = manifest.name
  if (!packageName) throw new Error(`${join(packageDir, 'package.json')} has no "name": npm cannot pack it`)

  const steps: SandboxResult['steps'] = []
  const problems: string[] = []
  const step = async <T>(name: SandboxStep, run: () => Promise<T>, statusOf: (value: T) => 'passed' | 'failed' | 'skipped' = () => 'passed') => {
    options.onStep?.({ step: name, phase: 'start' })
    const began = performance.now()
    let status: 'passed' | 'failed' | 'skipped' = 'failed'
    try {
      const value = await run()
      status = statusOf(value)
      return value
    } finally {
      const durationMs = Math.round(performance.now() - began)
      steps.push({ step: name, status, durationMs })
      options.onStep?.({ step: name, phase: 'end', status, durationMs })
    }
  }

  const sandbox = mkdtempSync(join(options.tempDir ?? tmpdir(), 'pi-sandbox-'))
  try {
    const packDir = join(sandbox, 'pack')
    const projectDir = join(sandbox, 'project')
    const npmEnv = { npm_config_update_notifier: 'false', ...options.env }
    const runNpm = async (name: 'npm pack' | 'npm install', args: string[], cwd: string) => {
      const [command, ...prefix] = npm
      const result = await runBounded({ command: command!, args: [...prefix, ...args], cwd, timeoutMs, env: npmEnv, signal: options.signal })
      if (result.status !== 'passed') throw new SandboxError(name, npmFailure(npm, args, result), result.outputTail)
      return result
    }

    const tarball = await step('npm pack', async () => {
      mkdirSync(packDir)
      await runNpm('npm pack', ['pack', '--pack-destination', packDir], packageDir)
      const packed = readdirSync(packDir).filter((file) => file.endsWith('.tgz'))
      if (packed.length !== 1) throw new SandboxError('npm pack', `expected one tarball in ${packDir}, found ${packed.length ? packed.join(', ') : 'none'}`)
      return packed[0]!
    })

    const installedDir = await step('npm install', async () => {
      mkdirSync(projectDir)
      writeFileSync(join(projectDir, 'package.json'), `${JSON.stringify({ name: 'pi-sandbox', private: true }, null, 2)}\n`)
      await runNpm('npm install', ['install', '--no-audit', '--no-fund', ...(options.installArgs ?? []), join(packDir, tarball)], projectDir)
      const dir = join(projectDir, 'node_modules', packageName)
      if (!existsSync(join(dir, 'package.json'))) throw new SandboxError('npm install', `npm reported success but ${dir} has no package.json`)
      return dir
    })

    const loadProblems: string[] = []
    const loaded = await step(
      'load',
      async () => {
        const installed = readPackageJson(installedDir)
        const { isolation, leave } = enterIsolation()
        let result: LoadedPackage
        try {
          result = await loadPiPackage(installedDir, { cwd: projectDir, agentDir: isolation.agentDir })
        } catch (error) {
          throw new SandboxError('load', `Pi's loader threw: ${messageOf(error)}`, undefined, { cause: error })
        } finally {
          leave()
        }
        for (const entry of missingManifestEntries(installed, installedDir)) {
          const inSource = existsSync(join(packageDir, entry.path))
          loadProblems.push(
            `the pi manifest lists ${entry.kind} "${entry.path}", which is not in the installed package` +
              (inSource ? ' (it exists in packageDir: add it to "files" in package.json)' : ''),
          )
        }
        for (const error of result.extensionErrors) loadProblems.push(`${error.path}: ${explainLoadError(error.error, installed, packageDir, installedDir)}`)
        for (const error of result.skillErrors) loadProblems.push(`skill ${error.path}: ${error.error}`)
        loadProblems.push(...(await unresolvedExports(installed, projectDir, options.signal)))
        return result
      },
      () => (loadProblems.length === 0 ? 'passed' : 'failed'),
    )
    problems.push(...loadProblems.map((problem) => `load: ${problem}`))

    const expectProblems = options.expect ? compareExpectations(options.expect, loaded) : []
    await step('expect', async () => expectProblems, (found) => (options.expect ? (found.length === 0 ? 'passed' : 'failed') : 'skipped'))
    problems.push(...expectProblems.map((problem) => `expect: ${problem}`))

    let smoke: SandboxResult['smoke']
    if (options.smoke) {
      const smokeProblems: string[] = []
      smoke = await step(
        'smoke',
        async () => {
          if (loaded.extensionErrors.length > 0) {
            smokeProblems.push('not run: the package did not load')
            return undefined
          }
          return runSmoke(options.smoke!, loaded.extensionFiles, installedDir, smokeProblems)
        },
        (ran) => (ran === undefined ? 'skipped' : smokeProblems.length === 0 ? 'passed' : 'failed'),
      )
      problems.push(...smokeProblems.map((problem) => `smoke: ${problem}`))
    }

    return {
      status: problems.length === 0 ? 'passed' : 'failed',
      packageName,
      version: manifest.version ?? '',
      tarball,
      loaded: { extensions: loaded.extensions, tools: loaded.tools, skills: loaded.skills, extensionErrors: loaded.extensionErrors },
      problems,
      steps,
      ...(smoke ? { smoke } : {}),
      durationMs: Math.round(performance.now() - startedAt),
    }
  } finally {
    rmSync(sandbox, { recursive: true, force: true })
  }
}

/** The playbook against the installed extensions, loaded as Pi loads them; what went wrong goes to `problems`. */
async function runSmoke(smoke: SandboxSmoke, extensionFiles: string[], installedDir: string, problems: string[]): Promise<{ events: SessionRecords }> {
  const { mockTools, mockUI, script } = smoke
  const records = new SessionRecords()
  let t: TestSession
  try {
    t = await createTestSession({
      extensions: extensionFiles,
      root: installedDir,
      importModule: piModuleLoader(),
      ...(mockTools ? { mockTools } : {}),
      ...(mockUI === undefined ? {} : { mockUI }),
    })
  } catch (error) {
    problems.push(`the session did not start: ${messageOf(error)}`)
    return { events: records }
  }
  try {
    await t.run(...script)
    // A smoke passes when the tools worked, not merely when the playbook was followed.
    for (const result of t.events.toolResults.filter((r) => r.isError)) {
      problems.push(`tool ${result.toolName} returned an error at playbook step ${result.step}: ${result.text}`)
    }
  } catch (error) {
    problems.push(messageOf(error))
  } finally {
    await t.dispose()
  }
  return { events: t.events }
}

function readPackageJson(dir: string): PackageJson {
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

function npmFailure(npm: string[], args: string[], result: BoundedRunResult): string {
  const command = [...npm, ...args].join(' ')
  const what =
    result.status === 'timed-out'
      ? `timed out after ${result.durationMs} ms`
      : result.status === 'cancelled'
        ? 'was cancelled'
        : `failed with exit code ${result.exitCode ?? `null (signal ${result.signal})`}`
  return `\`${command}\` ${what} in ${result.cwd}${result.outputTail ? `:\n${result.outputTail.trimEnd()}` : ' (no output)'}`
}

/** Manifest paths (not globs or patterns) that the tarball left out: Pi skips them without a word. */
function missingManifestEntries(installed: PackageJson, installedDir: string): { kind: string; path: string }[] {
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

function compareExpectations(expected: SandboxExpect, loaded: LoadedPackage): string[] {
  const problems: string[] = []
  const list = (items: string[]) => (items.length ? items.join(', ') : 'none')
  if (expected.extensions !== undefined && loaded.extensions.length !== expected.extensions) {
    problems.push(`expected ${expected.extensions} extension(s), Pi loaded ${loaded.extensions.length}: ${list(loaded.extensions)}`)
  }
  if (expected.tools !== undefined) {
    const missing = expected.tools.filter((tool) => !loaded.tools.includes(tool))
    const unlisted = loaded.tools.filter((tool) => !expected.tools!.includes(tool))
    if (missing.length) problems.push(`expected tool(s) not registered: ${missing.join(', ')} (registered: ${list(loaded.tools)})`)
    if (unlisted.length) problems.push(`registered tool(s) that expect.tools does not list: ${unlisted.join(', ')} (list every tool the package ships)`)
  }
  if (expected.skills !== undefined && loaded.skills.length !== expected.skills) {
    problems.push(`expected ${expected.skills} skill(s), Pi found ${loaded.skills.length}: ${list(loaded.skills)}`)
  }
  return problems
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
