// The pi() plugin's scripts and sandbox, as a user gets them: packed, installed, run once before the tests.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runBounded } from '../src/project/runner.js'
import { failuresByTitle, installConsumer, ROOT, type Consumer } from './support/consumer.js'

let consumer: Consumer
beforeAll(async () => {
  consumer = await installConsumer('test/consumer-global')
}, 300_000)
afterAll(() => consumer?.remove())

const progress = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('[pi] '))
    .map((line) => line.replace(/\(\d+\.\d+s\)/, '(…s)'))

describe('a consumer project with pi({ scripts, sandbox }) and two projects', () => {
  it('runs the scripts and the sandbox once, printing each step, and its tests read the results', async () => {
    const { result, report } = await consumer.vitest([])
    expect(failuresByTitle(report)).toEqual({})
    // Two tests in each of the two projects.
    expect({ passed: report.numPassedTests, failed: report.numFailedTests }).toEqual({ passed: 4, failed: 0 })
    expect(progress(result.outputTail)).toEqual([
      '[pi] npm run build started',
      '[pi] npm run build passed (…s)',
      '[pi] npm run lint started',
      '[pi] npm run lint failed (…s)',
      '[pi] sandbox npm pack started',
      '[pi] sandbox npm pack passed (…s)',
      '[pi] sandbox npm install started',
      '[pi] sandbox npm install passed (…s)',
      '[pi] sandbox load started',
      '[pi] sandbox load passed (…s)',
      '[pi] sandbox expect started',
      '[pi] sandbox expect passed (…s)',
      '[pi] sandbox smoke started',
      '[pi] sandbox smoke passed (…s)',
      '[pi] sandbox pi-hello passed (…s)',
    ])
  })

  it('fails the run with the sandbox\'s message when the package is broken', async () => {
    const run = await runBounded({
      command: process.execPath,
      args: [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config=vitest.broken.config.ts'],
      cwd: consumer.dir,
      timeoutMs: 120_000,
      env: { CI: 'true', NO_COLOR: '1', FORCE_COLOR: undefined },
    })
    expect(run.status).toBe('failed')
    expect(run.outputTail).toContain(
      [
        'vitest-environment-pi: the sandbox install of pi-broken failed:',
        `  1. load: extensions/strip.js: Failed to load extension: Cannot find module 'ansi-regex' ("ansi-regex" is not in the package's dependencies)`,
      ].join('\n'),
    )
    expect(run.outputTail).not.toMatch(/Test Files .* passed/)
  })
})
