// A consumer project that installs the PACKED package, as a user would, and runs Vitest in it.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import ts from 'typescript'
import { runBounded, type BoundedRunResult } from '../../src/project/runner.js'

export const ROOT = resolve(import.meta.dirname, '../..')
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs')
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')

/** The major version of the Vitest this checkout installed (4 from the lockfile, 5 on the Vitest 5 leg). */
export const VITEST_MAJOR = Number((JSON.parse(readFileSync(join(ROOT, 'node_modules/vitest/package.json'), 'utf8')) as { version: string }).version.split('.')[0])

/** Runs a command in a fixture project, without colours; `env` is merged over the defaults. */
export async function run(command: string, args: string[], cwd: string, { timeoutMs = 300_000, env = {} }: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<BoundedRunResult> {
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
  vitest(args: string[], env?: NodeJS.ProcessEnv): Promise<{ result: BoundedRunResult; report: VitestReport }>
  tsc(project?: string): Promise<BoundedRunResult>
  remove(): void
}

/** Packs this package (built to dist by `npm test` or `npm run test:e2e`) into `dir`; returns the tarball's path. */
export async function packPackage(dir: string): Promise<string> {
  const packed = await mustRun('npm', ['pack', '--silent', '--pack-destination', dir], ROOT)
  return join(dir, packed.outputTail.trim().split('\n').at(-1)!)
}

/**
 * Packs this package (built to dist by `npm test` or `npm run test:e2e`), copies the fixture project inside the repo (so the
 * repo's node_modules serve Pi, Vitest and TypeScript) and installs the tarball there: a real copy.
 */
export async function installConsumer(fixture: string): Promise<Consumer> {
  mkdirSync(join(ROOT, '.cache'), { recursive: true })
  const work = mkdtempSync(join(ROOT, '.cache', 'consumer-'))
  const dir = join(work, 'project')
  cpSync(join(ROOT, fixture), dir, { recursive: true })
  // Peers come from the repo's node_modules; the package's own dependencies from the npm cache.
  await installPacked(work, dir)
  let runs = 0
  return {
    dir,
    vitest: (args, env) => runVitest(dir, args, { outputFile: join(work, `report-${++runs}.json`), env }),
    tsc: (project = 'tsconfig.json') => run(process.execPath, [TSC, '-p', project], dir),
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

/** Packs this package into `work` and installs the tarball into the project `dir`, its dependencies from the npm cache. */
async function installPacked(work: string, dir: string): Promise<void> {
  const tarball = await packPackage(work)
  await mustRun('npm', ['install', '--no-save', '--legacy-peer-deps', '--prefer-offline', '--no-audit', '--no-fund', tarball], dir)
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

export type PiScope = '@earendil-works' | '@mariozechner'

export interface TypesConsumer {
  dir: string
  /**
   * tsc's errors in the project's own files and in the installed package's declarations, formatted as tsc
   * prints them. Pi's declarations are not asked: with skipLibCheck off they carry errors of their own in any
   * project (1.x imports JSON without import attributes, which NodeNext refuses; 0.73's SDKs name optional
   * packages), which no package that uses Pi's types can remove.
   */
  typecheck(project: string): string[]
  remove(): void
}

/**
 * A project with ONE Pi line installed, for tsc: outside the repo (whose node_modules hold both lines), the
 * packed package installed into it, then linked from the repo's node_modules what npm puts beside it when a
 * user installs Vitest and that line: vitest, vite, @types/node and the line's own packages (`scope`).
 */
export async function installTypesConsumer(fixture: string, scope: PiScope): Promise<TypesConsumer> {
  const work = mkdtempSync(join(tmpdir(), 'vitest-pi-types-'))
  const dir = join(realpathSync(work), 'project')
  cpSync(join(ROOT, fixture), dir, { recursive: true })
  await installPacked(work, dir)
  const scoped = readdirSync(join(ROOT, 'node_modules', scope)).map((name) => `${scope}/${name}`)
  for (const name of ['vitest', 'vite', '@types/node', ...scoped]) {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true })
    symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), 'dir')
  }
  return {
    dir,
    typecheck: (project) => ownErrors(join(dir, project), dir),
    remove: () => rmSync(work, { recursive: true, force: true }),
  }
}

// Links resolve to their real paths, outside `dir`: what stays inside is the project and the packed package.
function ownErrors(configFile: string, dir: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(configFile, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })
  if (!config) throw new Error(`cannot read ${configFile}`)
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences })
  const own = program.getSourceFiles().filter((file) => file.fileName.startsWith(`${dir}/`))
  const diagnostics = [
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
  ]
  const host = { getCanonicalFileName: (name: string) => name, getCurrentDirectory: () => dir, getNewLine: () => '\n' }
  return diagnostics.map((d) => ts.formatDiagnostic(d, host).trim())
}
