// Scenario (e): a generated suite of many small files, each a few standard-scenario sessions, run by
// `vitest run` through the built pi() plugin: with Vitest's default per-file isolation (each file imports Pi
// again) as pi() runs it (the bundle of Pi, each file's worker started ahead while the files before run), with
// the bundle alone (pi({ warmWorkers: false })), and from Pi's own files in workers started for each file
// (pi({ bundlePi: false, warmWorkers: false }), the path before both); and with pi({ isolate: false }) (one
// import per worker, the harness resets between files). Where a file's time goes: the same files with a
// trivial test each, in plain Vitest (the floor) and in the pi environment each way (its setup and Pi's
// import, without a session).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { harnessTest, runVitest } from './vitest-file.mjs'

// Each file is scenario (c)'s harness file, with fewer tests.
const suiteFile = harnessTest
const trivialFile = `import { expect, test } from 'vitest'\ntest('nothing', () => expect(1).toBe(1))\n`

const config = (plugin, include) => `import { defineConfig } from 'vitest/config'
import { pi } from 'vitest-environment-pi/plugin'

export default defineConfig({ plugins: [${plugin}], test: { include: ['${include}/*.test.mjs'] } })
`

/** Each configuration: its plugin line and the files it runs. */
const CONFIGS = {
  default: ['pi()', 'suite'],
  bundleOnly: ['pi({ warmWorkers: false })', 'suite'],
  unbundled: ['pi({ bundlePi: false, warmWorkers: false })', 'suite'],
  shared: ['pi({ isolate: false })', 'suite'],
  floor: ['', 'trivial'],
  emptyDefault: ['pi()', 'trivial'],
  emptyBundleOnly: ['pi({ warmWorkers: false })', 'trivial'],
  emptyUnbundled: ['pi({ bundlePi: false, warmWorkers: false })', 'trivial'],
}

/**
 * Generates the suites and configs in `dir`; runs each `rounds` times, in a rotating order. `buildBundle`
 * builds the bundle of Pi from nothing and says how long it took: the one-time cost of a run that finds none.
 */
export async function runIsolationScenario(dir, { files = 20, sessions = 5, rounds = 3, log = () => {}, buildBundle } = {}) {
  for (const [folder, text] of [['suite', suiteFile(sessions)], ['trivial', trivialFile]]) {
    mkdirSync(join(dir, folder), { recursive: true })
    for (let i = 1; i <= files; i++) writeFileSync(join(dir, folder, `file-${String(i).padStart(2, '0')}.test.mjs`), text)
  }
  for (const [name, [plugin, include]] of Object.entries(CONFIGS)) writeFileSync(join(dir, `${name}.config.mjs`), config(plugin, include))
  const buildMs = await buildBundle()
  const names = Object.keys(CONFIGS)
  const wall = Object.fromEntries(names.map((name) => [name, []]))
  for (let round = 0; round < rounds; round++) {
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)]
    for (const name of order) wall[name].push((await runVitest(dir, name, {}, files * (CONFIGS[name][1] === 'suite' ? sessions : 1))).wallMs)
    log(`(e) round ${round + 1}: ${names.map((name) => `${name} ${wall[name].at(-1).toFixed(0)} ms`).join(', ')}`)
  }
  return { files, sessions, rounds, wall, buildMs }
}
