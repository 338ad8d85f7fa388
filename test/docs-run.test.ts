// The docs' examples run. Each ```ts block of docs/*.md becomes a test file of a small project, in a folder of
// its own with the files its `<!-- example -->` comment names (the extension it loads, a session file), and the
// project's Vitest runs them all, with pi() from dist/ as an installed copy would be. A block that is a test
// body (it uses `t`, `createTestSession`, matchers) runs inside an `it`, after the comment's unseen code; a
// block with its own `it` or `describe` is a test file as it is; a module (`export default`: a config, a smoke
// file) is imported, and its default export must be there. README.md's blocks are the quick start, which
// test/readme.test.ts and `npm run examples` run. ```ts fragment (a shape) and ```ts reference (a list of
// calls, each run by the tests of what it calls) are type-checked only (test/docs-examples.test.ts).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PI_LINE } from '../src/pi/index.js'
import { ROOT, runVitest, type VitestReport } from './support/consumer.js'
import { type Block, blocksOf, IN_SCOPE, nameOf, PAGES } from './support/docs-blocks.js'

const RUN = PAGES.filter((page) => page !== 'README.md').flatMap(blocksOf).filter((block) => block.info === 'ts')

/** What the block's top level imports or declares, which its prelude must then leave out. */
function ownNames(source: ts.SourceFile): Set<string> {
  const names = new Set<string>()
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause
      if (clause?.name) names.add(clause.name.text)
      const bindings = clause?.namedBindings
      if (bindings && ts.isNamedImports(bindings)) bindings.elements.forEach((element) => names.add(element.name.text))
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text)
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text)
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) names.add(statement.name.text)
  }
  return names
}

const parse = (text: string) => ts.createSourceFile('block.ts', text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)

/** The imports of the names in scope (IN_SCOPE) that the block and its unseen code do not import or declare themselves. */
function preludeOf(text: string, before: string): string {
  const own = new Set([...ownNames(parse(text)), ...ownNames(parse(before))])
  return Object.entries(IN_SCOPE)
    .flatMap(([module, names]) => {
      const needed = names.filter((name) => !own.has(name))
      return needed.length > 0 ? [`import { ${needed.join(', ')} } from '${module}'`] : []
    })
    .join('\n')
}

const isTestCall = (statement: ts.Statement) =>
  ts.isExpressionStatement(statement) && /^(it|test|describe)\b/.test(statement.expression.getText()) && ts.isCallExpression(statement.expression)

/** The block as a test file: its docblock, the prelude it needs, then the block as a file, a test body or a module. */
function testFileOf(block: Block, folder: string): string {
  const source = parse(block.text)
  const options = { ...block.example?.options, root: folder }
  // Vitest reads a docblock anywhere in a test file's text, this one's included: the tag is put together.
  const lines = [`/** @${'vitest-environment-options'} ${JSON.stringify(options)} */`, preludeOf(block.text, block.example?.before ?? '')]
  const imports = source.statements.filter(ts.isImportDeclaration)
  const body = source.statements.filter((statement) => !ts.isImportDeclaration(statement))
  lines.push(...imports.map((statement) => statement.getText()))
  // Fake timers a block turns on end with it (the project runs its files in one worker).
  lines.push(`afterEach(() => { vi.useRealTimers() })`)
  const text = (statements: ts.Statement[]) => statements.map((statement) => statement.getFullText()).join('')
  if (body.some(isTestCall)) {
    lines.push(text(body))
  } else if (body.some((statement) => ts.isExportAssignment(statement))) {
    lines.push(`it(${JSON.stringify(nameOf(block))}, async () => {`, `  expect((await import('./example.module.ts')).default).toBeDefined()`, `})`)
  } else {
    const dir = `const dir = ${JSON.stringify(folder)}`
    lines.push(`it(${JSON.stringify(nameOf(block))}, async () => {`, dir, block.example?.before ?? '', text(body), `})`)
  }
  return `${lines.join('\n')}\n`
}

/** A file an example names: a path in this repository, or `pi:<path>` in the running Pi's package. */
function sourceOf(path: string): string {
  return path.startsWith('pi:') ? join(PI_LINE.packageDir, path.slice(3)) : join(ROOT, path)
}

describe('the ts blocks of docs/ run', () => {
  let project: string
  let report: VitestReport
  beforeAll(async () => {
    mkdirSync(join(ROOT, '.cache'), { recursive: true })
    project = mkdtempSync(join(ROOT, '.cache', 'docs-run-'))
    for (const [index, block] of RUN.entries()) {
      const folder = join(project, `${String(index).padStart(2, '0')}-${nameOf(block).replace(/[^\w]+/g, '-')}`)
      mkdirSync(folder, { recursive: true })
      for (const [name, path] of Object.entries(block.example?.files ?? {})) {
        mkdirSync(dirname(join(folder, name)), { recursive: true })
        copyFileSync(sourceOf(path), join(folder, name))
      }
      writeFileSync(join(folder, 'example.test.ts'), testFileOf(block, folder))
      if (/^export default/m.test(block.text)) writeFileSync(join(folder, 'example.module.ts'), `${preludeOf(block.text, '')}\n${block.text}`)
    }
    writeFileSync(
      join(project, 'vitest.config.ts'),
      `import { defineConfig } from 'vitest/config'\nimport { pi } from '${ROOT}/dist/environment/plugin.js'\n` +
        `export default defineConfig({ plugins: [pi({ isolate: false })], resolve: { alias: [{ find: /^vitest-environment-pi$/, replacement: '${ROOT}/dist/environment/index.js' }] }, test: { include: ['**/example.test.ts'], testTimeout: 120_000 } })\n`,
    )
    ;({ report } = await runVitest(project, [], { outputFile: join(project, 'report.json'), timeoutMs: 600_000 }))
  }, 660_000)
  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true })
  })

  it('finds the blocks', () => {
    expect(RUN.length).toBeGreaterThan(20)
  })

  it.each(RUN.map((block, index) => [nameOf(block), index] as const))('%s', (name, index) => {
    const file = report.testResults.find((result) => resolve(result.name).startsWith(join(project, String(index).padStart(2, '0') + '-')))
    expect(file, `${name} did not run`).toBeDefined()
    const failures = [(file as { message?: string }).message ?? ''].filter(Boolean).concat(file!.assertionResults.filter((test) => test.status !== 'passed').map((test) => `${test.title}: ${test.status}\n${test.failureMessages.join('\n')}`))
    expect(file!.assertionResults.length, `${name} ran no test`).toBeGreaterThan(0)
    expect(failures).toEqual([])
  })
})
