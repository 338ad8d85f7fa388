// The README's examples are real: the quick start is the example that `npm run examples` runs.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { piMatchers } from '../matchers/index.js'

const readme = readFileSync('README.md', 'utf8')

describe('README', () => {
  it('opens with the two commands', () => {
    expect(readme).toContain('npm ci && npm run examples')
    expect(readme).toContain('npm test ')
  })

  it.each(['examples/quick-start/index.ts', 'examples/quick-start/index.test.ts'])('shows %s as it is', (file) => {
    expect(readme).toContain(readFileSync(file, 'utf8').trim())
  })

  it.each(Object.keys(piMatchers))('shows %s with an example', (matcher) => {
    expect(readme).toMatch(new RegExp(`expect\\(.*\\)\\.${matcher}\\(`))
  })
})
