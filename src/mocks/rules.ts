// The one rule engine of every mock (exec, HTTP, tool invocations): first match wins, `times` caps a rule,
// and one policy decides what a call that no rule answers does.
import { messageOf } from '../shared/errors.js'
import { compileSpecPattern, type SpecPattern } from './spec/pattern.js'

/** What a mock does with a request no rule (and no default) answers. */
export type UnhandledMode = 'error' | 'warn' | 'bypass'

/** The part of a spec rule the bookkeeping reads: `times` caps its uses, and 0 or absent means unlimited. */
export interface CountedRule {
  times?: number
}

/** How one kind of rule is matched and described; the rules themselves stay plain data. */
export interface RuleMatcher<Request, Rule> {
  /** Why `rule` does not match `request`, one reason per failing condition; empty when it matches. */
  mismatches(rule: Rule, request: Request): string[]
  /** What the rule matches, in one line, e.g. `cmd_prefix "git status"`. */
  describe(rule: Rule): string
}

/** One key of a rule's `match`: whether a request meets it, why not, and how it reads. */
export interface Condition<Request, Value> {
  holds(request: Request, value: Value): boolean
  /** Why the request does not meet it, e.g. `the URL does not start with "https://a.test"`. */
  reason(request: Request, value: Value): string
  /** Defaults to the key and the value as JSON, e.g. `cmd_prefix "git"`. */
  describe?(value: Value): string
}

export type Conditions<Request, Match> = { [Key in keyof Match]-?: Condition<Request, NonNullable<Match[Key]>> }

/** A matcher for rules of the shape `{ match: {...} }`: every key the match gives must hold. */
export function matchTable<Request, Match extends object>(conditions: Conditions<Request, Match>): RuleMatcher<Request, { match: Match }> {
  const given = (match: Match) =>
    (Object.keys(conditions) as (keyof Match & string)[]).flatMap((key) => (match[key] === undefined ? [] : [[key, match[key]] as const]))
  const condition = (key: keyof Match) => conditions[key] as Condition<Request, unknown>
  return {
    mismatches: (rule, request) =>
      given(rule.match).flatMap(([key, value]) => (condition(key).holds(request, value) ? [] : [condition(key).reason(request, value)])),
    describe: (rule) =>
      given(rule.match)
        .map(([key, value]) => condition(key).describe?.(value) ?? `${key} ${JSON.stringify(value)}`)
        .join(', '),
  }
}

/** What a call that no rule answers does: fail the test, warn, or go where it would without mocks. */
export interface UnhandledPolicy {
  mode: UnhandledMode
  /** Told about every unhandled call under 'error': it fails the current test. */
  onUnhandled(error: Error): void
  warn(message: string): void
}

/** How one kind of mock answers what its rules do not. */
export interface Fallbacks<Answer> {
  /** What the call is, e.g. `exec: git status`, for the unhandled message. */
  call: string
  /** The spec's catch-all (`exec.default_result`), answering before the policy is asked. */
  default: { label: string; answer: (() => Answer) | undefined }
  /** 'bypass': where the call goes without mocks, and the label its record gets. */
  bypass: { label: string; answer(): Answer }
  /** 'warn': the answer given after the warning, and how the warning says it. */
  warned: { note: string; answer(): Answer }
}

export interface Answered<Answer> {
  answer: Answer
  /** The rule's label, the default's, the bypass label, or 'unhandled'. */
  answeredBy: string
}

/** The one unhandled call under 'error': thrown at the caller, and already reported to the test. */
export class UnhandledCallError extends Error {}

/** The rule that answers a request. */
export interface RuleHit<Rule> {
  rule: Rule
  index: number
  /** Where the rule sits in the spec, e.g. `exec.rules[1]`. */
  label: string
}

/** A rule that did not answer a request, and why. */
export interface RuleMiss {
  index: number
  label: string
  /** The rule matched but had already answered `times` times. */
  ranOut: boolean
  /** Why it did not match, one reason per failing condition; empty when it ran out. */
  reasons: readonly string[]
  /** `exec.rules[0] did not match: …` or `exec.rules[1] matched but its times (2) ran out`. */
  line: string
}

export type RuleLookup<Rule> = { hit: RuleHit<Rule> } | { hit: undefined; misses: RuleMiss[] }

/** A rule with `times` > 0 that has not answered that often yet. */
export interface PendingRule {
  label: string
  description: string
  times: number
  uses: number
  /** `exec.rules[1] (cmd_prefix "git status") answered 1 of 2 times`. */
  line: string
}

// An unhandled call's message names this many rules at most: thousands of lines hide the one that nearly matched.
const MAX_EXPLAINED_RULES = 10

export class MockRules<Request, Rule extends CountedRule> {
  readonly #rules: readonly Rule[]
  readonly #uses: number[]

  /** `section` and `list` name where the labels point, e.g. `exec` gives `exec.rules[N]`. */
  constructor(
    rules: readonly Rule[] | undefined,
    readonly section: string,
    readonly matcher: RuleMatcher<Request, Rule>,
    readonly list = 'rules',
  ) {
    this.#rules = rules ?? []
    this.#uses = this.#rules.map(() => 0)
  }

  labelOf(index: number): string {
    return `${this.section}.${this.list}[${index}]`
  }

  /** The first rule that matches and still has uses left; that use is counted. */
  find(request: Request): RuleLookup<Rule> {
    const misses: RuleMiss[] = []
    for (const [index, rule] of this.#rules.entries()) {
      const label = this.labelOf(index)
      const reasons = this.matcher.mismatches(rule, request)
      if (reasons.length > 0) {
        misses.push({ index, label, ranOut: false, reasons, line: `${label} did not match: ${reasons.join('; ')}` })
        continue
      }
      const times = limitOf(rule)
      if (times > 0 && this.#uses[index]! >= times) {
        misses.push({ index, label, ranOut: true, reasons: [], line: `${label} matched but its times (${times}) ran out` })
        continue
      }
      this.#uses[index]!++
      return { hit: { rule, index, label } }
    }
    return { hit: undefined, misses }
  }

  /**
   * One line per rule tried, in order, for an error message. Past 10 rules, the 10 that failed on the
   * fewest conditions (a rule that ran out failed on none), then a line counting the rest.
   */
  explain(misses: readonly RuleMiss[]): string[] {
    if (misses.length === 0) return [`(${this.section}.${this.list} is empty)`]
    if (misses.length <= MAX_EXPLAINED_RULES) return misses.map((miss) => miss.line)
    const closest = [...misses].sort((a, b) => a.reasons.length - b.reasons.length || a.index - b.index).slice(0, MAX_EXPLAINED_RULES)
    const rest = misses.length - closest.length
    return [
      ...closest.sort((a, b) => a.index - b.index).map((miss) => miss.line),
      `… and ${rest} more ${this.section}.${this.list}, none closer than those above`,
    ]
  }

  /**
   * The first rule's answer; else the default's; else what `policy` says: 'bypass' and 'warn' answer
   * from `fallbacks`, 'error' reports and throws an UnhandledCallError listing the rules and why they did not answer.
   */
  answer<Answer>(request: Request, answerOf: (rule: Rule) => Answer, fallbacks: Fallbacks<Answer>, policy: UnhandledPolicy): Answered<Answer> {
    const lookup = this.find(request)
    if (lookup.hit) return { answer: answerOf(lookup.hit.rule), answeredBy: lookup.hit.label }
    const { default: fallback, bypass, warned } = fallbacks
    if (fallback.answer) return { answer: fallback.answer(), answeredBy: fallback.label }
    if (policy.mode === 'bypass') return { answer: bypass.answer(), answeredBy: bypass.label }
    const message = [
      `Unhandled ${fallbacks.call} (no rule matched and ${fallback.label} is not set)`,
      ...this.explain(lookup.misses).map((line) => `  ${line}`),
    ].join('\n')
    if (policy.mode === 'warn') {
      policy.warn(`${message}\n${warned.note}`)
      return { answer: warned.answer(), answeredBy: 'unhandled' }
    }
    const error = new UnhandledCallError(message)
    policy.onUnhandled(error)
    throw error
  }

  pending(): PendingRule[] {
    const pending: PendingRule[] = []
    for (const [index, rule] of this.#rules.entries()) {
      const times = limitOf(rule)
      const uses = this.#uses[index]!
      if (times === 0 || uses >= times) continue
      const label = this.labelOf(index)
      const description = this.matcher.describe(rule)
      pending.push({ label, description, times, uses, line: `${label} (${description}) answered ${uses} of ${times} times` })
    }
    return pending
  }
}

/**
 * Compiles each rule's pattern (RE2 syntax, without flags), keyed by rule. Done once, up front, so a bad
 * pattern fails when the mock is made rather than on some later request.
 */
export function compilePatterns<Key extends string, Rule extends { match: { [K in Key]?: string } }>(
  rules: readonly Rule[],
  section: string,
  key: Key,
): Map<Rule, SpecPattern> {
  const patterns = new Map<Rule, SpecPattern>()
  rules.forEach((rule, index) => {
    const source = rule.match[key]
    if (source === undefined) return
    try {
      patterns.set(rule, compileSpecPattern(source))
    } catch (error) {
      throw new SyntaxError(`${section}.rules[${index}].match.${key}: ${messageOf(error)}`)
    }
  })
  return patterns
}

/** A rule's pattern, compiled once; compilePatterns has already rejected a bad one with its place. */
export const patternOf = compileSpecPattern

function limitOf(rule: CountedRule): number {
  return rule.times !== undefined && rule.times > 0 ? rule.times : 0
}
