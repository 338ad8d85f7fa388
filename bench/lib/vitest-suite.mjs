// Scenario (e): a generated suite of many small files, each a few standard-scenario sessions, run by
// `vitest run` through the built pi() plugin twice: with Vitest's default per-file isolation (each file
// imports Pi again) and with pi({ isolate: false }) (one import per worker, the harness resets between files).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { harnessTest, runVitest } from './vitest-file.mjs'

// Each file is scenario (c)'s harness file, with fewer tests.
const suiteFile = harnessTest

const config = (pluginOptions) => `import { defineConfig } from 'vitest/config'
import { pi } from 'vitest-environment-pi/plugin'

export default defineConfig({ plugins: [pi(${pluginOptions})], test: { include: ['suite/*.test.mjs'] } })
`

/** Generates the suite and both configs in `dir`; runs them `rounds` times, alternating which goes first. */
export async function runIsolationScenario(dir, { files = 20, sessions = 5, rounds = 3, log = () => {} } = {}) {
  mkdirSync(join(dir, 'suite'), { recursive: true })
  for (let i = 1; i <= files; i++) writeFileSync(join(dir, 'suite', `file-${String(i).padStart(2, '0')}.test.mjs`), suiteFile(sessions))
  writeFileSync(join(dir, 'isolated.config.mjs'), config(''))
  writeFileSync(join(dir, 'shared.config.mjs'), config('{ isolate: false }'))
  const wall = { isolated: [], shared: [] }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['isolated', 'shared'] : ['shared', 'isolated']
    for (const name of order) wall[name].push((await runVitest(dir, name, {}, files * sessions)).wallMs)
    log(`(e) round ${round + 1}: default isolation ${wall.isolated.at(-1).toFixed(0)} ms, isolate: false ${wall.shared.at(-1).toFixed(0)} ms`)
  }
  return { files, sessions, rounds, wall }
}
