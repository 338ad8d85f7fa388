// First-match-wins bookkeeping shared by the exec and HTTP mocks: which rule answers a request, and which rules went unused.

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
        misses.push({ index, label, ranOut: false, line: `${label} did not match: ${reasons.join('; ')}` })
        continue
      }
      const times = limitOf(rule)
      if (times > 0 && this.#uses[index]! >= times) {
        misses.push({ index, label, ranOut: true, line: `${label} matched but its times (${times}) ran out` })
        continue
      }
      this.#uses[index]!++
      return { hit: { rule, index, label } }
    }
    return { hit: undefined, misses }
  }

  /** One line per rule tried, in order, for an error message. */
  explain(misses: readonly RuleMiss[]): string[] {
    return misses.length > 0 ? misses.map((miss) => miss.line) : [`(${this.section}.${this.list} is empty)`]
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
 * Compiles each rule's pattern without flags, keyed by rule. Done once, up front, so a bad pattern fails
 * when the mock is made rather than on some later request.
 */
export function compilePatterns<Key extends string, Rule extends { match: { [K in Key]?: string } }>(
  rules: readonly Rule[],
  section: string,
  key: Key,
): Map<Rule, RegExp> {
  const patterns = new Map<Rule, RegExp>()
  rules.forEach((rule, index) => {
    const source = rule.match[key]
    if (source === undefined) return
    try {
      patterns.set(rule, new RegExp(source))
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      throw new SyntaxError(`${section}.rules[${index}].match.${key}: ${reason}`)
    }
  })
  return patterns
}

function limitOf(rule: CountedRule): number {
  return rule.times !== undefined && rule.times > 0 ? rule.times : 0
}
