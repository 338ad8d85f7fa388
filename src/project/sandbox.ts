// verifySandboxInstall: the package as a user gets it (npm pack, npm install, loaded by Pi), before it is published.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { enterIsolation } from '../isolation/isolation.js'
import { loadPiPackage, type LoadedPackage } from '../pi/load-package.js'
import type { SessionRecords } from '../records/records.js'
import { messageOf } from '../shared/errors.js'
import { installProblems, readPackageJson } from './install-problems.js'
import { resolveNpmCommand, runBounded, validateTimeoutMs, type BoundedRunResult } from './runner.js'
import { expectationProblems, runSmoke, type SandboxExpect, type SandboxSmoke, type SmokeSessionStarter } from './sandbox-checks.js'
import { SandboxError, type SandboxStep } from './sandbox-steps.js'

export type { SandboxExpect, SandboxSmoke, SmokeSessionStarter } from './sandbox-checks.js'
export { SandboxError, SANDBOX_STEPS, type SandboxStep } from './sandbox-steps.js'

type StepStatus = 'passed' | 'failed' | 'skipped'

export interface SandboxStepEvent {
  step: SandboxStep
  phase: 'start' | 'end'
  /** Set when phase is 'end'. */
  status?: StepStatus
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

/** What Pi's loader found in the installed package, paths relative to it. */
export type SandboxLoaded = Pick<LoadedPackage, 'extensions' | 'tools' | 'skills' | 'extensionErrors'>

export interface SandboxResult {
  status: 'passed' | 'failed'
  packageName: string
  version: string
  /** The tarball's file name, as `npm pack` wrote it. */
  tarball: string
  loaded: SandboxLoaded
  /** What is wrong with the package, each starting with its step ("load: ...", "expect: ...", "smoke: ..."). */
  problems: string[]
  steps: { step: SandboxStep; status: StepStatus; durationMs: number }[]
  /** Present when a smoke playbook was given and ran: the session's records. */
  smoke?: { events: SessionRecords }
  durationMs: number
}

/**
 * Packs `packageDir`, installs the tarball into a fresh project, loads it with Pi's own package loader,
 * checks `expect`, and runs the optional smoke playbook against the installed copy. Problems with the
 * package come back as a 'failed' result; a step that cannot run throws a SandboxError.
 */
export async function verifySandboxInstall(options: SandboxOptions, startSession?: SmokeSessionStarter): Promise<SandboxResult> {
  const startedAt = performance.now()
  const timeoutMs = validateTimeoutMs(options.timeoutMs)
  const npm = resolveNpmCommand(options.npmCommand)
  const packageDir = resolve(options.packageDir)
  const manifest = readPackageJson(packageDir)
  const packageName = manifest.name
  if (!packageName) throw new Error(`${join(packageDir, 'package.json')} has no "name": npm cannot pack it`)

  const { steps, step } = recordSteps(options.onStep)
  const problems: string[] = []
  const report = (name: 'load' | 'expect' | 'smoke', found: string[]) => problems.push(...found.map((problem) => `${name}: ${problem}`))

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

    let loadProblems: string[] = []
    const loaded = await step(
      'load',
      async () => {
        const installed = readPackageJson(installedDir)
        const result = await loadInstalled(installedDir, projectDir)
        loadProblems = await installProblems({ packageDir, installedDir, installed, projectDir }, result, options.signal)
        return result
      },
      () => (loadProblems.length === 0 ? 'passed' : 'failed'),
    )
    report('load', loadProblems)

    const expectProblems = options.expect ? expectationProblems(options.expect, loaded) : []
    await step('expect', async () => expectProblems, (found) => (options.expect ? (found.length === 0 ? 'passed' : 'failed') : 'skipped'))
    report('expect', expectProblems)

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
          return runSmoke(options.smoke!, loaded.extensionFiles, installedDir, smokeProblems, startSession)
        },
        (ran) => (ran === undefined ? 'skipped' : smokeProblems.length === 0 ? 'passed' : 'failed'),
      )
      report('smoke', smokeProblems)
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

/** Runs each step between its start and end events, and keeps its status and duration for the result. */
function recordSteps(onStep: SandboxOptions['onStep']) {
  const steps: SandboxResult['steps'] = []
  const step = async <T>(name: SandboxStep, run: () => Promise<T>, statusOf: (value: T) => StepStatus = () => 'passed'): Promise<T> => {
    onStep?.({ step: name, phase: 'start' })
    const began = performance.now()
    let status: StepStatus = 'failed'
    try {
      const value = await run()
      status = statusOf(value)
      return value
    } finally {
      const durationMs = Math.round(performance.now() - began)
      steps.push({ step: name, status, durationMs })
      onStep?.({ step: name, phase: 'end', status, durationMs })
    }
  }
  return { steps, step }
}

/** The installed copy, loaded by Pi's own package loader inside the isolated home. */
async function loadInstalled(installedDir: string, projectDir: string): Promise<LoadedPackage> {
  const { isolation, leave } = await enterIsolation()
  try {
    return await loadPiPackage(installedDir, { cwd: projectDir, agentDir: isolation.agentDir })
  } catch (error) {
    throw new SandboxError('load', `Pi's loader threw: ${messageOf(error)}`, undefined, { cause: error })
  } finally {
    leave()
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
