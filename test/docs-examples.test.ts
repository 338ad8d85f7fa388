// The docs' examples are checked, as the README's quick start is run: every ```ts block of README.md and
// docs/*.md type-checks against the package's published types (dist/, as a user's project sees them), and
// every relative link points at a file and heading that exist. A block that is only a piece of code (an
// object's shape, a few properties) is marked ```ts fragment and left out; a failure names the page and line.
// test/docs-run.test.ts runs the blocks too, all but ```ts reference (a list of calls) and README.md's.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Block, blocksOf, IN_SCOPE, PAGES } from './support/docs-blocks.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

const ALL_BLOCKS = PAGES.flatMap(blocksOf)
const TS_BLOCKS = ALL_BLOCKS.filter((block) => block.info === 'ts' || block.info === 'ts reference')

/** The names in scope (IN_SCOPE), declared by their modules' types, and a session `t`, a temp `dir` and `pi`. */
function prelude(): string {
  const modules = Object.entries(IN_SCOPE)
  return [
    ...modules.map(([module], index) => `import type * as M${index} from '${module}'`),
    `import type * as Pkg from 'vitest-environment-pi'`,
    `import type {} from 'vitest-environment-pi/plugin'`,
    `import type { ExtensionAPI } from '@earendil-works/pi-coding-agent'`,
    `declare global {`,
    ...modules.flatMap(([, names], index) => names.map((name) => `  const ${name}: typeof M${index}.${name}`)),
    `  const t: Pkg.TestSession`,
    `  const dir: string`,
    `  const pi: ExtensionAPI`,
    `}`,
    `export {}`,
  ].join('\n')
}

/** Each block as a module of its own, beside the package.json that makes it ESM and resolves the package's own name. */
const fileOf = (block: Block) => join(ROOT, '.docs-examples', `${block.page.replace(/[/.]/g, '_')}_${block.line}.ts`)

/** Type-checks every block in one program; returns each block's problems as `page:line: message`. */
function typecheck(blocks: Block[]): Map<Block, string[]> {
  const files = new Map<string, string>([[join(ROOT, '.docs-examples', 'prelude.d.ts'), prelude()]])
  // The module marker goes on the block's last line, so every line number stays the page's.
  for (const block of blocks) files.set(fileOf(block), `${block.text.replace(/\n$/, '')} ;export {}\n`)
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  }
  const host = ts.createCompilerHost(options)
  const readFile = host.readFile.bind(host)
  const getSourceFile = host.getSourceFile.bind(host)
  host.fileExists = (name) => files.has(name) || ts.sys.fileExists(name)
  host.readFile = (name) => files.get(name) ?? readFile(name)
  host.getSourceFile = (name, language, ...rest) =>
    files.has(name) ? ts.createSourceFile(name, files.get(name)!, language, true, ts.ScriptKind.TS) : getSourceFile(name, language, ...rest)
  const program = ts.createProgram([...files.keys()], options, host)
  const problems = new Map<Block, string[]>()
  for (const block of blocks) {
    const source = program.getSourceFile(fileOf(block))!
    problems.set(
      block,
      [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((diagnostic) => {
        const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0)
        return `${block.page}:${block.line + line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`
      }),
    )
  }
  return problems
}

describe('the ts blocks of README.md and docs/', () => {
  let problems: Map<Block, string[]>
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/environment/index.d.ts'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
    problems = typecheck(TS_BLOCKS)
  }, 120_000)

  it('are every block of a language the check knows: ts, ts reference, ts fragment, or not TypeScript', () => {
    expect(ALL_BLOCKS.filter((block) => block.info.startsWith('ts') && !['ts', 'ts fragment', 'ts reference'].includes(block.info)).map((b) => `${b.page}:${b.line - 1}: ${b.info}`)).toEqual([])
    expect(TS_BLOCKS.length).toBeGreaterThan(20)
  })

  it.each(TS_BLOCKS.map((block) => [`${block.page}:${block.line - 1}`, block] as const))('%s type-checks', (_, block) => {
    expect(problems.get(block)).toEqual([])
  })
})

describe('docs/mocks.md', () => {
  it('names every field of the mock spec schema', () => {
    const schema = JSON.parse(readFileSync(join(ROOT, 'src/mocks/spec/schema.json'), 'utf8')) as unknown
    const fields = new Set<string>()
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk)
      if (typeof node !== 'object' || node === null) return
      for (const [key, value] of Object.entries(node)) {
        if (key === 'properties' && typeof value === 'object' && value !== null) Object.keys(value).forEach((field) => fields.add(field))
        walk(value)
      }
    }
    walk(schema)
    const page = readFileSync(join(ROOT, 'docs/mocks.md'), 'utf8')
    expect([...fields].filter((field) => !new RegExp(`[\\s\`({,]${field}[\\s\`:?,})]`).test(page))).toEqual([])
  })
})

/** GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` dropped, spaces as `-`. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')

function anchorsOf(page: string): Set<string> {
  const text = readFileSync(join(ROOT, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '')
  return new Set([...text.matchAll(/^#+ (.*)$/gm)].map((match) => anchorOf(match[1]!)))
}

describe('the relative links of README.md and docs/', () => {
  // The installed package is where a user reads them too (node_modules/vitest-environment-pi): the pages ship.
  it("README.md's and the pages' links to pages point at files the package ships", () => {
    const { files } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }
    const shipped = (path: string) => files.some((entry) => path === entry || path.startsWith(`${entry}/`) || (entry.endsWith('/*.md') && dirname(path) === entry.slice(0, -5) && path.endsWith('.md')))
    const targets = PAGES.flatMap((page) =>
      [...readFileSync(join(ROOT, page), 'utf8').matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)].map(([, path]) => relative(ROOT, resolve(ROOT, dirname(page), path!))),
    )
    expect(targets.length).toBeGreaterThan(40)
    expect([...new Set(targets)].filter((target) => !shipped(target))).toEqual([])
  })


  it.each(PAGES)('%s links to files and headings that exist', (page) => {
    const lines = readFileSync(join(ROOT, page), 'utf8').replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, '')).split('\n')
    const broken: string[] = []
    for (const [index, line] of lines.entries()) {
      for (const [, link] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(link!)) continue
        const [path, anchor] = link!.split('#') as [string, string | undefined]
        const target = path ? relative(ROOT, resolve(ROOT, dirname(page), path)) : page
        if (!existsSync(join(ROOT, target))) broken.push(`${page}:${index + 1}: ${link} (no file ${target})`)
        else if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor)) broken.push(`${page}:${index + 1}: ${link} (no such heading in ${target})`)
      }
    }
    expect(broken).toEqual([])
  })
})
