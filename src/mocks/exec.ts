// Answers pi.exec from the `exec` section of a mock spec; the caller decides how a call gets here.
import type { ExecMatch, ExecMock, ExecResult, ExecRule } from './spec/types.js'
import { execResult, type ExtensionAPI } from '../pi/index.js'
import type { ExecCallRecord } from '../records/records.js'
import { compilePatterns, MockRules, type PendingRule, type RuleMatcher, type UnhandledMode } from './rules.js'

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
 * - `cmd_pattern`: a JavaScript RegExp, compiled without flags, finds a match in the command line;
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
  const patterns = compilePatterns(mocks.rules ?? [], 'exec', 'cmd_pattern')
  const rules = new MockRules<ExecCall, ExecRule>(mocks.rules, 'exec', execMatcher(patterns))

  async function answer(call: ExecCall, execOptions: ExecOptions | undefined): Promise<[PiExecResult, string]> {
    const lookup = rules.find(call)
    if (lookup.hit) return [resultOf(lookup.hit.rule.result), lookup.hit.label]
    if (mocks.default_result) return [resultOf(mocks.default_result), 'exec.default_result']
    if (options.unhandled === 'bypass') return [await options.realExec(call.command, [...call.args], execOptions), 'real']
    const message = [
      `Unhandled exec: ${call.line} (no rule matched and exec.default_result is not set)`,
      ...rules.explain(lookup.misses).map((line) => `  ${line}`),
    ].join('\n')
    if (options.unhandled === 'warn') {
      options.warn(`${message}\nAnswered as Pi answers a command that cannot be started: code 1, empty stdout and stderr.`)
      return [notStarted(), 'unhandled']
    }
    const error = new Error(message)
    options.onUnhandled(error)
    throw error
  }

  return {
    async exec(command, args, execOptions) {
      const call: ExecCall = { command, args: [...args], line: [command, ...args].join(' ') }
      const record = (result: PiExecResult, answeredBy: string, error?: unknown) =>
        options.record({
          command,
          args: [...args],
          ...cwdOf(execOptions),
          result,
          answeredBy,
          ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }),
        })
      let answered: [PiExecResult, string]
      try {
        answered = await answer(call, execOptions)
      } catch (error) {
        record(notStarted(), options.unhandled === 'bypass' ? 'real' : 'unhandled', error)
        throw error
      }
      const [result, answeredBy] = answered
      record({ ...result }, answeredBy)
      return result
    },
    pending: () => rules.pending(),
  }
}

function execMatcher(patterns: ReadonlyMap<ExecRule, RegExp>): RuleMatcher<ExecCall, ExecRule> {
  return {
    mismatches: (rule, call) => mismatches(rule.match, call, patterns.get(rule)),
    describe: (rule) => describeMatch(rule.match),
  }
}

function mismatches(match: ExecMatch, call: ExecCall, pattern: RegExp | undefined): string[] {
  const reasons: string[] = []
  if (match.cmd_exact !== undefined && match.cmd_exact !== call.command && match.cmd_exact !== call.line) {
    reasons.push(`neither the command nor the command line is ${JSON.stringify(match.cmd_exact)}`)
  }
  if (match.cmd_prefix !== undefined && !call.line.startsWith(match.cmd_prefix)) {
    reasons.push(`the command line does not start with ${JSON.stringify(match.cmd_prefix)}`)
  }
  if (pattern !== undefined && !pattern.test(call.line)) {
    reasons.push(`the command line does not match ${String(pattern)}`)
  }
  const missing = (match.args_contain ?? []).filter((arg) => !call.args.includes(arg))
  if (missing.length > 0) {
    reasons.push(`the args do not contain ${missing.map((arg) => JSON.stringify(arg)).join(', ')}`)
  }
  return reasons
}

function describeMatch(match: ExecMatch): string {
  const parts: string[] = []
  if (match.cmd_exact !== undefined) parts.push(`cmd_exact ${JSON.stringify(match.cmd_exact)}`)
  if (match.cmd_prefix !== undefined) parts.push(`cmd_prefix ${JSON.stringify(match.cmd_prefix)}`)
  if (match.cmd_pattern !== undefined) parts.push(`cmd_pattern ${JSON.stringify(match.cmd_pattern)}`)
  if (match.args_contain !== undefined) parts.push(`args_contain ${JSON.stringify(match.args_contain)}`)
  return parts.join(', ')
}

function resultOf(result: ExecResult): PiExecResult {
  return execResult({ stdout: result.stdout ?? '', stderr: result.stderr ?? '', code: result.code, killed: result.killed ?? false })
}

function cwdOf(options: ExecOptions | undefined): { cwd?: string } {
  return options?.cwd !== undefined ? { cwd: options.cwd } : {}
}
