// Scenario (c): one Vitest file of 100 standard-scenario tests, through the built pi() plugin, and the
// same file doing the work with bare Pi (plain node environment), each run by `vitest run` with the
// JSON reporter. Per-test durations come from the report (they include the test's hooks).
import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mean } from './stats.mjs'

const lib = (name) => fileURLToPath(new URL(`./${name}`, import.meta.url))
const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))

/** A test file of `tests` standard-scenario tests through the harness (also scenario (e)'s files). */
export const harnessTest = (tests) => `import { expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'
import { bashAnswer, standardExtension, STANDARD_PROMPT } from ${JSON.stringify(lib('standard.mjs'))}

for (let i = 1; i <= ${tests}; i++) {
  it(\`standard scenario \${i}\`, async () => {
    const t = await createTestSession({ extensions: [standardExtension], mockTools: { bash: bashAnswer } })
    await t.run(when(STANDARD_PROMPT, [calls('greet', { name: 'Ada' }), calls('bash', { command: 'rm -rf /' }), says('done')]))
    await t.dispose()
    expect(t.events.blockedCalls()).toHaveLength(1)
  })
}
`

const bareTest = (tests) => `import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { bareStandardIteration } from ${JSON.stringify(lib('bare.mjs'))}
import { bashAnswer, standardExtension, standardSteps, STANDARD_PROMPT } from ${JSON.stringify(lib('standard.mjs'))}

const root = mkdtempSync(join(tmpdir(), 'pi-bench-bare-'))
const dirs = { cwd: root, agentDir: root }
const standard = { extension: standardExtension, bashAnswer, steps: standardSteps, prompt: STANDARD_PROMPT }
afterAll(() => rmSync(root, { recursive: true, force: true }))

for (let i = 1; i <= ${tests}; i++) {
  it(\`standard scenario \${i}\`, async () => {
    const { messages } = await bareStandardIteration(dirs, standard)
    expect(messages.filter((m) => m.role === 'toolResult' && m.isError)).toHaveLength(1)
  })
}
`

const harnessConfig = `import { defineConfig } from 'vitest/config'
import { pi } from 'vitest-environment-pi/plugin'

// BENCH_VITEST_EXEC_ARGV: node flags for the test worker (a CPU profile needs lib/exit-on-sigterm.cjs, bench/README.md).
export default defineConfig({ plugins: [pi()], test: { include: ['harness.test.mjs'], execArgv: JSON.parse(process.env.BENCH_VITEST_EXEC_ARGV ?? '[]') } })
`

const bareConfig = `import { defineConfig } from 'vitest/config'

export default defineConfig({ test: { include: ['bare.test.mjs'], environment: 'node', execArgv: JSON.parse(process.env.BENCH_VITEST_EXEC_ARGV ?? '[]') } })
`

/** Runs `<config>.config.mjs` in `dir` with the JSON reporter; rejects unless every test (and `expectedTests`, when given) passed. */
export function runVitest(dir, config, env = {}, expectedTests) {
  const report = join(dir, `${config}.report.json`)
  const started = performance.now()
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [VITEST, 'run', '--root', dir, '--config', join(dir, `${config}.config.mjs`), '--reporter=json', `--outputFile=${report}`],
      { cwd: dir, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const wallMs = performance.now() - started
        let json
        try {
          json = JSON.parse(readFileSync(report, 'utf8'))
        } catch {
          reject(new Error(`vitest (${config}) wrote no report: ${error?.message ?? ''}\n${stdout}\n${stderr}`))
          return
        }
        const tests = json.testResults.flatMap((file) => file.assertionResults)
        const failed = tests.filter((test) => test.status !== 'passed')
        if (failed.length > 0 || (expectedTests !== undefined && tests.length !== expectedTests)) {
          const why = failed[0]?.failureMessages?.join('\n') ?? stderr
          reject(new Error(`vitest (${config}): ${tests.length - failed.length}/${expectedTests ?? tests.length} passed\n${why}`))
          return
        }
        resolve({ wallMs, durations: tests.map((test) => test.duration ?? NaN) })
      },
    )
  })
}

/**
 * Generates the two files and their configs in `dir`; runs them `rounds` times, alternating which goes first:
 * one run a side moved by more than the goal's 1 ms between runs on this machine (2.3 to 3.9 ms a test).
 */
export async function runVitestScenario(dir, { tests = 100, rounds = 3, env = {}, log = () => {} } = {}) {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'harness.test.mjs'), harnessTest(tests))
  writeFileSync(join(dir, 'bare.test.mjs'), bareTest(tests))
  writeFileSync(join(dir, 'harness.config.mjs'), harnessConfig)
  writeFileSync(join(dir, 'bare.config.mjs'), bareConfig)
  const bareEnv = { PI_OFFLINE: '1', PI_TELEMETRY: '0', JITI_FS_CACHE: 'false', ...env }
  const runs = { harness: [], bare: [] }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['harness', 'bare'] : ['bare', 'harness']
    for (const side of order) runs[side].push(await runVitest(dir, side, side === 'bare' ? bareEnv : env, tests))
    log(`(c) round ${round + 1}: per test after the first, harness ${perTestAfterFirst(runs.harness.at(-1).durations).toFixed(2)} ms, bare ${perTestAfterFirst(runs.bare.at(-1).durations).toFixed(2)} ms`)
  }
  return runs
}

/** The mean duration of a file's tests after its first (which pays for the first session of the worker). */
export function perTestAfterFirst(durations) {
  return mean(durations.slice(1))
}

// Tests 2 to 20 of a file: V8 still compiles the code they run, and the worker's first young-generation
// collections fall among them.
export const WARM_UP_TESTS = 20

/** The figure judged, split at WARM_UP_TESTS: the mean of tests 2 to 20, and of those after. */
export function perTestSplit(durations) {
  return { warmUp: mean(durations.slice(1, WARM_UP_TESTS)), afterWarmUp: mean(durations.slice(WARM_UP_TESTS)) }
}
