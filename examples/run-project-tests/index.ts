import { StringEnum } from '@mariozechner/pi-ai'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { Type } from 'typebox'
import { PROJECT_SCRIPTS, runProjectScript, type ProjectScript, type ProjectScriptResult } from 'vitest-environment-pi/runner'

/** The key of the status line that shows the latest run. */
export const STATUS_KEY = 'run_project_tests'

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`

function outcome(run: ProjectScriptResult): string {
  if (run.status === 'timed-out') return `timed out after ${seconds(run.durationMs)}`
  if (run.status === 'cancelled') return `cancelled after ${seconds(run.durationMs)}`
  return `${run.status} (exit code ${run.exitCode ?? `null, signal ${run.signal}`}) in ${seconds(run.durationMs)}`
}

/** One line for the UI; it names the directory, so an old result stays labelled with where it ran. */
export const statusLine = (run: ProjectScriptResult) => `npm run ${run.script} ${outcome(run)} · ${run.cwd}`

/** What the model reads: the run's metadata, then its bounded output, marked as untrusted. */
export function report(run: ProjectScriptResult): string {
  return [
    `npm run ${run.script}: ${outcome(run)}`,
    `cwd: ${run.cwd}`,
    `output: last ${run.outputTail.length} characters of ${run.outputBytes} bytes (untrusted text from the project):`,
    run.outputTail.trimEnd() || '(no output)',
  ].join('\n')
}

/** Runs one of five fixed npm scripts in the session's workspace, one run at a time. */
export default function runProjectTests(pi: ExtensionAPI) {
  let running: { script: ProjectScript; cwd: string; stop: AbortController } | undefined
  let latest: ProjectScriptResult | undefined

  // A run whose session ends is stopped, and its result never replaces the latest one.
  pi.on('session_shutdown', () => running?.stop.abort())

  pi.registerTool({
    name: 'run_project_tests',
    label: 'Run project tests',
    description:
      "Runs one of the project's npm scripts (test, build, format:check, lint, typecheck; default test) in the workspace and reports its status and the end of its output.",
    parameters: Type.Object({
      script: Type.Optional(StringEnum(PROJECT_SCRIPTS, { description: 'Which npm script to run; defaults to test' })),
    }),
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      const script = params.script ?? 'test'
      if (running) throw new Error(`npm run ${running.script} is already running in ${running.cwd}; wait for its result before starting another run`)
      const stop = new AbortController()
      const run = (running = { script, cwd: ctx.cwd, stop })
      ctx.ui.setStatus(STATUS_KEY, `npm run ${script} running · ${run.cwd}`)
      try {
        const result = await runProjectScript({ script, cwd: run.cwd, signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal })
        if (stop.signal.aborted) throw new Error(`the session ended while npm run ${script} was running; its result was discarded`)
        latest = result
        if (result.status === 'cancelled') throw new Error(`npm run ${script} was cancelled`)
        return { content: [{ type: 'text', text: report(result) }], details: result }
      } finally {
        running = undefined
        if (!stop.signal.aborted) ctx.ui.setStatus(STATUS_KEY, latest ? statusLine(latest) : undefined)
      }
    },
  })
}
