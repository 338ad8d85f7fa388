import { describe, expect, it } from 'vitest'
import { compilePatterns, MockRules, patternOf, type RuleMatcher } from '../../src/mocks/rules.js'

interface WordRule {
  match: { word: string }
  answer: string
  times?: number
}

const byWord: RuleMatcher<string, WordRule> = {
  mismatches: (rule, request) => (request === rule.match.word ? [] : [`${JSON.stringify(request)} is not ${JSON.stringify(rule.match.word)}`]),
  describe: (rule) => `word ${JSON.stringify(rule.match.word)}`,
}

describe('MockRules', () => {
  it('answers with the first matching rule and labels it by its place in the section', () => {
    const rules = new MockRules<string, WordRule>(
      [
        { match: { word: 'a' }, answer: 'first a' },
        { match: { word: 'b' }, answer: 'b' },
        { match: { word: 'b' }, answer: 'second b' },
      ],
      'demo',
      byWord,
    )
    const lookup = rules.find('b')
    expect(lookup.hit).toEqual({ rule: { match: { word: 'b' }, answer: 'b' }, index: 1, label: 'demo.rules[1]' })
  })

  it('skips a rule whose times ran out, falling through to a later one', () => {
    const rules = new MockRules<string, WordRule>(
      [
        { match: { word: 'a' }, answer: 'limited', times: 2 },
        { match: { word: 'a' }, answer: 'fallback' },
      ],
      'demo',
      byWord,
    )
    const answers = [1, 2, 3].map(() => rules.find('a').hit?.rule.answer)
    expect(answers).toEqual(['limited', 'limited', 'fallback'])
  })

  it('reports a rule that matched only after its times ran out apart from rules that did not match', () => {
    const rules = new MockRules<string, WordRule>(
      [
        { match: { word: 'a' }, answer: 'a' },
        { match: { word: 'b' }, answer: 'b', times: 2 },
      ],
      'demo',
      byWord,
    )
    rules.find('b')
    rules.find('b')
    const lookup = rules.find('b')
    expect(lookup.hit).toBeUndefined()
    const misses = lookup.hit === undefined ? lookup.misses : []
    expect(misses).toEqual([
      { index: 0, label: 'demo.rules[0]', ranOut: false, reasons: ['"b" is not "a"'], line: 'demo.rules[0] did not match: "b" is not "a"' },
      { index: 1, label: 'demo.rules[1]', ranOut: true, reasons: [], line: 'demo.rules[1] matched but its times (2) ran out' },
    ])
    expect(rules.explain(misses)).toEqual(['demo.rules[0] did not match: "b" is not "a"', 'demo.rules[1] matched but its times (2) ran out'])
  })

  it('treats times 0 and an absent times as unlimited', () => {
    const rules = new MockRules<string, WordRule>([{ match: { word: 'a' }, answer: 'zero', times: 0 }], 'demo', byWord)
    const answers = Array.from({ length: 5 }, () => rules.find('a').hit?.rule.answer)
    expect(answers).toEqual(['zero', 'zero', 'zero', 'zero', 'zero'])
    expect(rules.pending()).toEqual([])
  })

  it('lists as pending the rules with times left, with their uses so far', () => {
    const rules = new MockRules<string, WordRule>(
      [
        { match: { word: 'a' }, answer: 'a', times: 2 },
        { match: { word: 'b' }, answer: 'b' },
        { match: { word: 'c' }, answer: 'c', times: 1 },
        { match: { word: 'd' }, answer: 'd', times: 1 },
      ],
      'demo',
      byWord,
    )
    rules.find('a')
    rules.find('d')
    expect(rules.pending()).toEqual([
      { label: 'demo.rules[0]', description: 'word "a"', times: 2, uses: 1, line: 'demo.rules[0] (word "a") answered 1 of 2 times' },
      { label: 'demo.rules[2]', description: 'word "c"', times: 1, uses: 0, line: 'demo.rules[2] (word "c") answered 0 of 1 times' },
    ])
  })

  it('explains at most 10 rules: those that failed on the fewest conditions, a rule that ran out first, in rule order', () => {
    const words = ['a', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l']
    const rules = new MockRules<string, WordRule>(
      [...words.map((word) => ({ match: { word }, answer: word })), { match: { word: 'b' }, answer: 'b', times: 1 }],
      'demo',
      byWord,
    )
    rules.find('b')
    const lookup = rules.find('b')
    expect(lookup.hit === undefined ? rules.explain(lookup.misses) : []).toEqual([
      ...words.slice(0, 9).map((word, index) => `demo.rules[${index}] did not match: "b" is not "${word}"`),
      'demo.rules[11] matched but its times (1) ran out',
      '… and 2 more demo.rules, none closer than those above',
    ])
  })

  it('explains an empty rule list as such', () => {
    const rules = new MockRules<string, WordRule>(undefined, 'demo', byWord)
    const lookup = rules.find('a')
    expect(lookup.hit === undefined ? rules.explain(lookup.misses) : []).toEqual(['(demo.rules is empty)'])
  })
})

describe('compilePatterns', () => {
  it('compiles each rule pattern without flags and names the rule of a bad one', () => {
    const good = { match: { pattern: '^a.c$' } }
    const patterns = compilePatterns([good, { match: {} }], 'demo', 'pattern')
    expect([...patterns.values()].map(String)).toEqual(['/^a.c$/'])
    expect(() => compilePatterns([good, { match: { pattern: '(' } }], 'demo', 'pattern')).toThrow(
      new SyntaxError('demo.rules[1].match.pattern: Invalid regular expression: /(/: Unterminated group'),
    )
  })

  it('reads RE2 syntax, finds a match anywhere, and refuses what would need backtracking', () => {
    expect([patternOf('(?i)^git').test('GIT status'), patternOf('st').test('git status'), patternOf('^st').test('git status')]).toEqual([true, true, false])
    expect(String(patternOf('^https://a.test/'))).toBe('/^https:\\/\\/a.test\\//')
    expect(() => compilePatterns([{ match: { pattern: '(?<=v)1' } }], 'demo', 'pattern')).toThrow(
      new SyntaxError(
        'demo.rules[0].match.pattern: Unsupported regular expression: /(?<=v)1/: invalid named capture: `(?<=v)1` ' +
          '(patterns use RE2 syntax, which matches in linear time: no lookahead, lookbehind or backreferences)',
      ),
    )
  })
})
