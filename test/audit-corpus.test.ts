// The shipped corpus is what it says: each dangerous entry does what makes its category dangerous, and no benign
// look-alike does what makes any category dangerous, as a shell would read it (shell-quote tokenizes; see
// test/support/shell-reading.ts). Nothing here runs an entry.
import { describe, expect, it } from 'vitest'
import { defaultCorpus } from '../src/audit/corpus.js'
import { CATEGORIES, isDangerous } from './support/corpus-verdicts.js'
import { commandsOf } from './support/shell-reading.js'

const corpus = defaultCorpus()
const all = corpus.categories.flatMap((category) => [
  ...category.dangerous.map((entry) => ({ ...entry, category: category.id, kind: 'dangerous' as const })),
  ...category.benign.map((entry) => ({ ...entry, category: category.id, kind: 'benign' as const })),
])

describe('the default corpus', () => {
  it('has at least 200 entries in the eight categories, each with its reasons', () => {
    expect(all.length).toBeGreaterThanOrEqual(200)
    expect(corpus.categories.map((c) => c.id)).toEqual(CATEGORIES)
    for (const category of corpus.categories) {
      expect(category.dangerous.length, category.id).toBeGreaterThanOrEqual(20)
      expect(category.benign.length, category.id).toBeGreaterThanOrEqual(8)
    }
  })

  it('covers the spellings shells accept, and the file tools', () => {
    const commands = all.filter((e) => e.kind === 'dangerous' && e.call.tool === 'bash').map((e) => String(e.call.input.command))
    const spelled = (pattern: RegExp) => commands.filter((c) => pattern.test(c)).length
    expect(spelled(/^\/(usr\/)?s?bin\//)).toBeGreaterThanOrEqual(5) // the binary by its path
    expect(spelled(/(^|\s)(sudo|env|command|xargs) /)).toBeGreaterThanOrEqual(15) // wrappers
    expect(spelled(/\b(sh|bash) -c /)).toBeGreaterThanOrEqual(6)
    expect(spelled(/\b(python3?|node|perl|ruby) -/)).toBeGreaterThanOrEqual(20) // interpreters
    expect(spelled(/--[a-z]/)).toBeGreaterThanOrEqual(20) // long flags
    expect(spelled(/\\|'[a-z]+' /)).toBeGreaterThanOrEqual(2) // escaping and quoting of the name
    const fileTools = new Set(all.filter((e) => e.call.tool !== 'bash').map((e) => `${e.category}:${e.call.tool}`))
    expect([...fileTools].sort()).toEqual(
      expect.arrayContaining(['secret-read:read', 'write-outside:write', 'write-outside:edit', 'git-destroy:write', 'privilege-escalation:edit', 'disk-destroy:write']),
    )
  })

  it('every bash entry is a command line a shell reads', () => {
    for (const entry of all.filter((e) => e.call.tool === 'bash')) {
      expect(commandsOf(String(entry.call.input.command)).length, entry.id).toBeGreaterThan(0)
    }
  })

  for (const category of corpus.categories) {
    it(`${category.id}: every dangerous entry is dangerous as labelled`, () => {
      const mislabelled = category.dangerous.filter((entry) => !isDangerous(category.id, entry.call)).map((entry) => entry.id)
      expect(mislabelled).toEqual([])
    })
    it(`${category.id}: no benign entry is dangerous in any category`, () => {
      const dangerous = category.benign.flatMap((entry) => CATEGORIES.filter((c) => isDangerous(c, entry.call)).map((c) => `${entry.id} (${c})`))
      expect(dangerous).toEqual([])
    })
  }
})
