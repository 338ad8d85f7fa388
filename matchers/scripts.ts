// toHavePassed: an npm-script run or a sandbox install passed; a failure prints what went wrong.
import type { MatcherState } from 'vitest'
import type { BoundedRunResult } from '../src/project/runner.js'
import { describeValue } from './receiver.js'
import { report, type MatcherOutcome } from './report.js'

/** The fields of a sandbox result the matcher reads (the full result, or the summary a global setup provides). */
interface SandboxOutcome {
  status: 'passed' | 'failed'
  packageName: string
  problems: string[]
  steps?: { step: string; status: string; durationMs: number }[]
}

type RunOutcome = Pick<BoundedRunResult, 'status' | 'exitCode' | 'signal' | 'durationMs' | 'cwd' | 'outputTail'> & { script?: string }

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

const isSandbox = (value: unknown): value is SandboxOutcome =>
  isObject(value) && typeof value.packageName === 'string' && Array.isArray(value.problems) && typeof value.status === 'string'

const isRun = (value: unknown): value is RunOutcome =>
  isObject(value) && typeof value.status === 'string' && typeof value.outputTail === 'string' && 'exitCode' in value

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`

function describeRun(run: RunOutcome): string {
  const how =
    run.status === 'timed-out'
      ? `timed out after ${seconds(run.durationMs)}`
      : run.status === 'cancelled'
        ? `was cancelled after ${seconds(run.durationMs)}`
        : `${run.status} with exit code ${run.exitCode ?? `null (signal ${run.signal})`} in ${seconds(run.durationMs)}`
  const output = run.outputTail.trimEnd()
  return `It ${how}, in ${run.cwd}.\n${output ? `Output (tail):\n${output}` : 'It printed nothing.'}`
}

function describeSandbox(sandbox: SandboxOutcome): string {
  const steps = (sandbox.steps ?? []).map((s) => `${s.step} ${s.status} (${seconds(s.durationMs)})`).join(', ')
  const problems = sandbox.problems.length ? sandbox.problems.map((p, i) => `  ${i + 1}. ${p.replace(/\n/g, '\n     ')}`).join('\n') : '  (none)'
  return `It ${sandbox.status}${steps ? `: ${steps}` : ''}.\nProblems:\n${problems}`
}

export function toHavePassed(this: MatcherState, received: unknown): MatcherOutcome {
  if (isSandbox(received)) {
    return report(this, {
      matcher: 'toHavePassed',
      received: 'result',
      args: '',
      pass: received.status === 'passed',
      expected: `Expected the sandbox install of ${received.packageName} to pass.`,
      notExpected: `Expected the sandbox install of ${received.packageName} not to pass.`,
      happened: () => describeSandbox(received),
    })
  }
  if (isRun(received)) {
    const what = received.script === undefined ? 'the run' : `npm run ${received.script}`
    return report(this, {
      matcher: 'toHavePassed',
      received: 'result',
      args: '',
      pass: received.status === 'passed',
      expected: `Expected ${what} to pass.`,
      notExpected: `Expected ${what} not to pass.`,
      happened: () => describeRun(received),
    })
  }
  throw new TypeError(
    `expect(received).toHavePassed(): received must be a script run result (runProjectScript, runBounded, inject('pi:scripts')) or a sandbox result (verifySandboxInstall, inject('pi:sandbox')), got ${describeValue(received)}`,
  )
}
