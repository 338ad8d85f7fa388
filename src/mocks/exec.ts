// Answers pi.exec from the `exec` section of a mock spec; the caller decides how a call gets here.
import type { ExecMatch, ExecMock, ExecResult, ExecRule } from './spec/types.js'
import { execResult } from '../pi/index.js'
import type { ExtensionAPI } from '../pi/types.js'
import type { ExecCallRecord } from '../records/records.js'
import { messageOf } from '../shared/errors.js'
import { compilePatterns, matchTable, MockRules, patternOf, type Fallbacks, type PendingRule, type UnhandledMode, type UnhandledPolicy } from './rules.js'

/** The options and result of Pi's own `pi.exec`, read off its declaration so the mock cannot drift from it. */
export type ExecOptions = NonNullable<Parameters<ExtensionAPI['exec']>[2]>
export type PiExecResult = Awaited<ReturnType<ExtensionAPI['exec']>>

export interface ExecMockOptions {
  unhandled: UnhandledMode
  /** Runs the command for real; used only with `unhandled: 'bypass'`. */
  realExec(command: string, args: string[], options?: ExecOptions): Promise<PiExecResult>
  /** Told about every call no mock answers when `unhandled` is 'error'. */
  onUnhandled(error: Error): void
  record(call: ExecCallRecord): void
  warn(message: string): void
}

export interface ExecMockHandle {
  exec(command: string, args: string[], options?: ExecOptions): Promise<PiExecResult>
  /** Rules with `times` > 0 that have not answered that often yet. */
  pending(): PendingRule[]
}

interface ExecCall {
  command: string
  args: readonly string[]
  /** `[command, ...args].join(' ')`: the text cmd_exact, cmd_prefix and cmd_pattern look at. */
  line: string
}

// Pi resolves a spawn failure (ENOENT, a missing cwd) with code 1 and never rejects.
const notStarted = (): PiExecResult => execResult({ stdout: '', stderr: '', code: 1, killed: false })

/**
 * Answers `pi.exec(command, args, options)` from the rules of `mocks`, first match wins.
 *
 * A rule matches when every key its `match` gives holds, where the command line is `[command, ...args].join(' ')`:
 * - `cmd_exact`: equals the command alone (`"git"`) or the whole command line (`"git status --short"`);
 * - `cmd_prefix`: the command line starts with it (plain text, so `"git"` also matches `"gitk"`);
 * - `cmd_pattern`: a pattern in RE2 syntax (linear-time: no lookaround or backreferences), compiled
 *   without flags, finds a match in the command line;
 * - `args_contain`: every listed string is one of the args (whole elements, any order).
 *
 * A rule with `times` > 0 answers at most that often. When no rule answers, `default_result` does;
 * without one, `unhandled` decides: 'error' rejects the call with an Error listing each rule and why it
 * did not answer (also passed to `onUnhandled`), 'warn' warns and answers as Pi answers a command that
 * cannot be started (code 1, empty output), 'bypass' runs the command through `realExec`.
 *
 * Results default to stdout '', stderr '', code 0, killed false, in the shape of the running Pi's result.
 * `killed: true` without a code gets the code the running Pi reports for a process its timeout or abort
 * signal killed (0.73: 0; 1.x: 143, the shell's SIGTERM code); a rule's own code is kept.
 */
export function createExecMock(mocks: ExecMock, options: ExecMockOptions): ExecMockHandle {
  compilePatterns(mocks.rules ?? [], 'exec', 'cmd_pattern')
  const rules = new MockRules<ExecCall, ExecRule>(mocks.rules, 'exec', execMatcher)
  const policy: UnhandledPolicy = { mode: options.unhandled, onUnhandled: options.onUnhandled, warn: options.warn }
  const fallbacks = (call: ExecCall, execOptions: ExecOptions | undefined): Fallbacks<PiExecResult | Promise<PiExecResult>> => ({
    call: `exec: ${call.line}`,
    default: { label: 'exec.default_result', answer: mocks.default_result && (() => resultOf(mocks.default_result!)) },
    bypass: { label: 'real', answer: () => options.realExec(call.command, [...call.args], execOptions) },
    warned: { note: 'Answered as Pi answers a command that cannot be started: code 1, empty stdout and stderr.', answer: notStarted },
  })

  return {
    async exec(command, args, execOptions) {
      const call: ExecCall = { command, args: [...args], line: [command, ...args].join(' ') }
      const record = (result: PiExecResult, answeredBy: string, error?: unknown) =>
        options.record({ command, args: [...args], ...cwdOf(execOptions), result, answeredBy, ...(error === undefined ? {} : { error: messageOf(error) }) })
      try {
        const { answer, answeredBy } = rules.answer(call, (rule) => resultOf(rule.result), fallbacks(call, execOptions), policy)
        const result = await answer
        record({ ...result }, answeredBy)
        return result
      } catch (error) {
        record(notStarted(), options.unhandled === 'bypass' ? 'real' : 'unhandled', error)
        throw error
      }
    },
    pending: () => rules.pending(),
  }
}

const execMatcher = matchTable<ExecCall, ExecMatch>({
  cmd_exact: {
    holds: (call, exact) => exact === call.command || exact === call.line,
    reason: (_call, exact) => `neither the command nor the command line is ${JSON.stringify(exact)}`,
  },
  cmd_prefix: {
    holds: (call, prefix) => call.line.startsWith(prefix),
    reason: (_call, prefix) => `the command line does not start with ${JSON.stringify(prefix)}`,
  },
  cmd_pattern: {
    holds: (call, source) => patternOf(source).test(call.line),
    reason: (_call, source) => `the command line does not match ${String(patternOf(source))}`,
  },
  args_contain: {
    holds: (call, wanted) => wanted.every((arg) => call.args.includes(arg)),
    reason: (call, wanted) =>
      `the args do not contain ${wanted
        .filter((arg) => !call.args.includes(arg))
        .map((arg) => JSON.stringify(arg))
        .join(', ')}`,
  },
})

function resultOf(result: ExecResult): PiExecResult {
  return execResult({ stdout: result.stdout ?? '', stderr: result.stderr ?? '', code: result.code, killed: result.killed ?? false })
}

function cwdOf(options: ExecOptions | undefined): { cwd?: string } {
  return options?.cwd !== undefined ? { cwd: options.cwd } : {}
}
