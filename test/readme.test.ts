// The README's examples are real: the quick start is the example that `npm run examples` runs, and it
// runs as written in a new folder.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { piMatchers } from '../matchers/index.js'
import { packPackage, ROOT, run } from './support/consumer.js'
import { CURRENT_LINE } from './support/pi-line.js'

const readme = readFileSync('README.md', 'utf8')
const docsPages = readdirSync('docs').filter((name) => name.endsWith('.md'))

describe('README', () => {
  it('opens with the commands that run the examples, the fast suite and the end-to-end files', () => {
    // The first shell block, above "Start here": what a contributor runs in a checkout.
    const opening = readme.slice(readme.indexOf('```sh'), readme.indexOf('```\n', readme.indexOf('```sh') + 1))
    expect(readme.indexOf('```sh')).toBeLessThan(readme.indexOf('## Start here'))
    expect(opening.split('\n').filter((line) => line.startsWith('npm')).map((line) => line.split('#')[0]!.trim())).toEqual([
      'npm ci && npm run examples',
      'npm test',
      'npm run test:e2e',
    ])
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
    expect([scripts.test, scripts['test:e2e']]).toEqual([expect.stringContaining('--project unit'), expect.stringContaining('--project e2e')])
  })

  it.each(['examples/quick-start/index.ts', 'examples/quick-start/index.test.ts'])('shows %s as it is', (file) => {
    expect(readme).toContain(readFileSync(file, 'utf8').trim())
  })

  // The reference lives in docs/: every matcher has an example on some page.
  it.each(Object.keys(piMatchers))('shows %s with an example, in the README or docs/', (matcher) => {
    expect([readme, ...docsPages.map((page) => readFileSync(join('docs', page), 'utf8'))].join('\n')).toMatch(new RegExp(`expect\\(.*\\)\\.${matcher}\\(`))
  })
})

/** One step of the quick start: shell commands to run, or a file to write (named in the text just above it). */
type Step = { commands: string[] } | { file: string; text: string }

/** The quick start's code blocks, in order: each `sh` block's lines are commands, any other block a file. */
function quickStartSteps(markdown: string): Step[] {
  const section = markdown.slice(markdown.indexOf('## Quick start'), markdown.indexOf('\n## ', markdown.indexOf('## Quick start') + 1))
  const steps: Step[] = []
  let prose = ''
  for (const [i, part] of section.split(/^```/m).entries()) {
    if (i % 2 === 0) {
      prose = part
      continue
    }
    const lang = part.slice(0, part.indexOf('\n'))
    const body = part.slice(part.indexOf('\n') + 1)
    if (lang === 'sh') {
      steps.push({ commands: body.split('\n').map((line) => line.trim()).filter(Boolean) })
    } else {
      const named = [...prose.matchAll(/`([\w./-]+\.(?:ts|json))`/g)].at(-1)
      if (!named) throw new Error(`the quick start's ${lang} block after "${prose.trim().slice(-60)}" names no file`)
      steps.push({ file: named[1]!, text: body })
    }
  }
  return steps
}

/** The version of `name` installed here: the quick start's install line takes exactly the stack this leg runs. */
const installedVersion = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version

/**
 * The install line as run here: the package from its tarball, every other package at the version this
 * checkout has installed (so from the npm cache, and the same stack as the leg), nothing else changed.
 */
function pinInstall(command: string, tarball: string): string {
  const words = command.split(/\s+/)
  if (!/^npm (i|install)$/.test(words.slice(0, 2).join(' '))) return command
  const pinned = words.slice(2).map((word) => {
    if (word.startsWith('-')) return word
    return word === 'vitest-environment-pi' ? tarball : `${word}@${installedVersion(word)}`
  })
  return [...words.slice(0, 2), ...pinned, '--prefer-offline', '--no-audit', '--no-fund'].join(' ')
}

describe('the quick start, in a new folder after npm init -y', () => {
  // Made by the test that uses it, not as the file is collected: a run that filters that test out makes none.
  let work: string | undefined
  afterAll(() => work && rmSync(work, { recursive: true, force: true }))

  it('lays out a project, an install line and two commands', () => {
    const steps = quickStartSteps(readme)
    expect(steps.filter((step) => 'file' in step).map((step) => step.file)).toEqual([
      'vitest.config.ts',
      'tsconfig.json',
      'quick-start/index.ts',
      'quick-start/index.test.ts',
    ])
    expect(steps.flatMap((step) => ('commands' in step ? step.commands : []))).toContain('npm pkg set type=module')
  })

  // The quick start installs @earendil-works/pi-coding-agent, which needs Node >= 22.19: the 0.73 leg (Node 20) has
  // no such stack. Every leg with Pi 1.x runs it with its own Vitest.
  it.skipIf(!CURRENT_LINE)('type-checks and passes, run step by step as the README shows it', async () => {
    work = mkdtempSync(join(tmpdir(), 'pi-quick-start-'))
    const project = join(work, 'project')
    mkdirSync(project)
    const tarball = await packPackage(work)
    // The same Node as this run for every command (npm, npx and what they start).
    const env = { PATH: `${dirname(process.execPath)}:${process.env.PATH}` }
    const ran: string[] = []
    for (const step of quickStartSteps(readme)) {
      if ('file' in step) {
        mkdirSync(dirname(join(project, step.file)), { recursive: true })
        writeFileSync(join(project, step.file), step.text)
        continue
      }
      for (const command of step.commands.map((line) => pinInstall(line, tarball))) {
        const result = await run('bash', ['-c', command], project, { env })
        expect(result.status, `${command}:\n${result.outputTail}`).toBe('passed')
        ran.push(`${command}\n${result.outputTail}`)
      }
    }
    const vitestOutput = ran.at(-1)!
    expect(vitestOutput).toMatch(/Tests\s+1 passed \(1\)/)
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))).toMatchObject({ type: 'module' })
  }, 600_000)
})
