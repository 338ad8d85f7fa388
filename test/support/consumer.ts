// A consumer project that installs the PACKED package, as a user would, and runs Vitest in it.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { runBounded, type BoundedRunResult } from '../../src/project/runner.js'

export const ROOT = resolve(import.meta.dirname, '../..')
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs')

async function run(command: string, args: string[], cwd: string, { timeoutMs = 300_000, env = {} }: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<BoundedRunResult> {
  const result = await runBounded({ command, args, cwd, timeoutMs, env: { CI: 'true', NO_COLOR: '1', FORCE_COLOR: undefined, ...env } })
  if (result.status === 'timed-out') throw new Error(`${command} ${args.join(' ')} timed out in ${cwd}:\n${result.outputTail}`)
  return result
}

async function mustRun(command: string, args: string[], cwd: string): Promise<BoundedRunResult> {
  const result = await run(command, args, cwd)
  if (result.status !== 'passed') throw new Error(`${command} ${args.join(' ')} failed (${result.exitCode}) in ${cwd}:\n${result.outputTail}`)
  return result
}

export interface VitestReport {
  numPassedTests: number
  numFailedTests: number
  numPendingTests: number
  numTotalTests: number
  snapshot: { added: number; updated: number; unmatched: number; matched: number; filesAdded: number; filesUpdated: number }
  testResults: { name: string; assertionResults: { title: string; status: string; failureMessages: string[] }[] }[]
}

export interface Consumer {
  dir: string
  vitest(args: string[]): Promise<{ result: BoundedRunResult; report: VitestReport }>
  tsc(project?: string): Promise<BoundedRunResult>
  remove(): void
}

/**
 * Packs this package (built to dist by `npm test`), copies the fixture project inside the repo (so the
 * repo's node_modules serve Pi, Vitest and TypeScript) and installs the tarball there: a real copy.
 */
export async function installConsumer(fixture: string): Promise<Consumer> {
  mkdirSync(join(ROOT, '.cache'), { recursive: true })
  const work = mkdtempSync(join(ROOT, '.cache', 'consumer-'))
  const dir = join(work, 'project')
  cpSync(join(ROOT, fixture), dir, { recursive: true })
  const packed = await mustRun('npm', ['pack', '--silent', '--pack-destination', work], ROOT)
  const tarball = join(work, packed.outputTail.trim().split('\n').at(-1)!)
  // Peers come from the repo's node_modules; the package's own dependencies from the npm cache.
  await mustRun('npm', ['install', '--no-save', '--legacy-peer-deps', '--prefer-offline', '--no-audit', '--no-fund', tarball], dir)
  let runs = 0
  return {
    dir,
    vitest: (args) => runVitest(dir, args, { outputFile: join(work, `report-${++runs}.json`) }),
    tsc: (project = 'tsconfig.json') => run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], dir),
    remove: () => rmSync(work, { recursive: true, force: true }),
  }
}

/** Runs Vitest in `dir` with the JSON reporter writing `outputFile`; `env` is merged over this process's. */
export async function runVitest(
  dir: string,
  args: string[],
  { outputFile, env, timeoutMs }: { outputFile: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ result: BoundedRunResult; report: VitestReport }> {
  const result = await run(process.execPath, [VITEST, 'run', '--reporter=json', `--outputFile=${outputFile}`, ...args], dir, { env, timeoutMs })
  let report: VitestReport
  try {
    report = JSON.parse(readFileSync(outputFile, 'utf8')) as VitestReport
  } catch {
    throw new Error(`vitest ${args.join(' ')} wrote no report (${result.status}):\n${result.outputTail}`)
  }
  return { result, report }
}

/** Failure messages by test title, without terminal colours. */
export function failuresByTitle(report: VitestReport): Record<string, string> {
  const out: Record<string, string> = {}
  for (const file of report.testResults) {
    for (const test of file.assertionResults) {
      if (test.status === 'failed') out[test.title] = test.failureMessages.join('\n').replace(/\x1b\[[0-9;]*m/g, '')
    }
  }
  return out
}
