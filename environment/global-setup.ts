// The global setup the pi() plugin adds for `scripts` and `sandbox`: they run once per Vitest run, however many
// projects there are, print a line as each step starts and ends, and reach tests through inject().
import { resolve } from 'node:path'
import type { TestProject } from 'vitest/node'
import { runProjectScript } from '../src/project/runner.js'
import { globalSlot } from '../src/shared/global-slot.js'
import { createTestSession } from '../src/test-session.js'
import { SandboxError, verifySandboxInstall, type SandboxResult, type SandboxSmoke } from '../src/project/sandbox.js'
import { GLOBAL_SETUP_OPTIONS, type PiGlobalSetupOptions, type ProvidedSandbox, type ProvidedScripts } from './provided.js'

interface Outcome {
  scripts: ProvidedScripts
  sandbox?: ProvidedSandbox
}

// Vitest calls the global setup for each project and the root; all of them must share one run.
const sharedRuns = globalSlot('global-setup', () => new Map<string, { users: number; outcome: Promise<Outcome> }>())
// Set for the scripts we start, so a script that runs this suite again does not start them again.
const NESTED = 'VITEST_ENVIRONMENT_PI_GLOBAL_SETUP'

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const options = project.config.environmentOptions?.[GLOBAL_SETUP_OPTIONS] as PiGlobalSetupOptions | undefined
  if (!options || (!options.scripts?.length && !options.sandbox)) return undefined
  const log = (line: string) => project.vitest.logger.log(`[pi] ${line}`)
  if (process.env[NESTED]) {
    log('scripts and sandbox skipped: this run was started by one of them')
    return undefined
  }
  const runs = sharedRuns.get()
  const key = JSON.stringify({ root: project.config.root, options })
  let run = runs.get(key)
  if (!run) {
    run = { users: 0, outcome: runOnce(project, options, log) }
    runs.set(key, run)
  }
  let outcome: Outcome
  try {
    outcome = await run.outcome
  } catch (error) {
    runs.delete(key)
    throw error
  }
  run.users++
  project.provide('pi:scripts', outcome.scripts)
  if (outcome.sandbox) project.provide('pi:sandbox', outcome.sandbox)
  const entry = run
  return () => {
    // The last teardown forgets the run, so a later run in this process starts afresh.
    if (--entry.users === 0 && runs.get(key) === entry) runs.delete(key)
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`

async function runOnce(project: TestProject, options: PiGlobalSetupOptions, log: (line: string) => void): Promise<Outcome> {
  const root = project.config.root
  const scripts: ProvidedScripts = {}
  for (const script of options.scripts ?? []) {
    log(`npm run ${script} started`)
    const result = await runProjectScript({ script, cwd: root, env: { [NESTED]: '1' } })
    log(`npm run ${script} ${result.status} (${seconds(result.durationMs)})`)
    scripts[script] = result
  }
  if (!options.sandbox) return { scripts }

  const { smokeFile, ...sandbox } = options.sandbox
  const packageDir = resolve(root, sandbox.packageDir)
  const smoke = smokeFile === undefined ? undefined : await loadSmoke(project, resolve(root, smokeFile))
  let result: SandboxResult
  try {
    result = await verifySandboxInstall(
      {
        ...sandbox,
        packageDir,
        ...(smoke ? { smoke } : {}),
        env: { [NESTED]: '1', ...sandbox.env },
        onStep: ({ step, phase, status, durationMs }) =>
          log(phase === 'start' ? `sandbox ${step} started` : `sandbox ${step} ${status} (${seconds(durationMs ?? 0)})`),
      },
      // The smoke at either depth (smoke.process): the createTestSession that chooses it.
      createTestSession,
    )
  } catch (error) {
    if (error instanceof SandboxError) log(`sandbox failed at ${error.step}`)
    throw error
  }
  log(`sandbox ${result.packageName} ${result.status} (${seconds(result.durationMs)})`)
  if (result.status === 'failed') {
    throw new Error(
      `vitest-environment-pi: the sandbox install of ${result.packageName} failed:\n${result.problems.map((p, i) => `  ${i + 1}. ${p}`).join('\n')}`,
    )
  }
  return { scripts, sandbox: plainSandbox(result) }
}

async function loadSmoke(project: TestProject, file: string): Promise<SandboxSmoke> {
  // Through the project's Vite module runner, so the smoke file may be TypeScript.
  const module = await project.import<{ default?: unknown; smoke?: unknown }>(file)
  const smoke = (module.smoke ?? module.default) as SandboxSmoke | undefined
  if (!smoke || !Array.isArray(smoke.script)) {
    throw new TypeError(`sandbox.smokeFile ${file} must export (as default or \`smoke\`) an object { script: Turn[], mockTools?, mockUI?, process? }`)
  }
  return smoke
}

/** Tests receive provided values serialized: keep the smoke's calls and results, as plain data. */
function plainSandbox(result: SandboxResult): ProvidedSandbox {
  const { smoke, ...rest } = result
  const plain: ProvidedSandbox = smoke ? { ...rest, smoke: { toolCalls: smoke.events.toolCalls, toolResults: smoke.events.toolResults } } : rest
  return JSON.parse(JSON.stringify(plain)) as ProvidedSandbox
}
