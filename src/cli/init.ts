// `vitest-environment-pi init`: sets up an extension package for testing with what it can detect (the Pi
// line, module kind, language, the extensions Pi loads), then prints the next command to run.
import { basename, dirname, join, relative } from 'node:path'
import { editFile, writeFile, describeChange, type Change } from './files.js'
import { firstTest } from './first-test.js'
import { findExtensions, registrationsOf, runningPi } from './probe.js'
import { dependencyNames, indentOf, readProject, type ExtensionProject } from './project.js'
import { setUpTsconfig } from './tsconfig-types.js'
import { setUpVitestConfig } from './vitest-config.js'
import { CliError } from './errors.js'
import { satisfiesNode } from '../pi/line.js'

export interface InitOptions {
  readonly dir: string
  readonly force: boolean
  readonly log: (line: string) => void
}

/** The Pi line a package without one should install: the current line where this Node runs it. */
const suggestedPi = () => (satisfiesNode('>=22.19.0') ? '@earendil-works/pi-coding-agent' : '@mariozechner/pi-coding-agent@0.73')

/** npm's placeholder for a package without tests. */
const NPM_DEFAULT_TEST = /no test specified/

export async function init({ dir, force, log }: InitOptions): Promise<Change[]> {
  const project = readProject(dir)
  const found = await findExtensions(dir)
  for (const { path, error } of found.errors) log(`Pi could not load ${path}: ${error}`)
  if (found.files.length === 0) {
    throw new CliError(`${project.manifestFile}: no extension found: list them in "pi": { "extensions": ["./index.ts"] }, or add an index.ts`)
  }
  log(
    `${project.manifest.name ?? basename(dir)}: ${project.esm ? 'ES modules' : 'CommonJS'}, ${project.typescript ? 'TypeScript' : 'JavaScript'}, ` +
      `Pi ${project.declaredPi ?? `not in package.json (running ${runningPi()})`}; extensions: ${found.files.join(', ')}`,
  )
  const changes: Change[] = [setUpVitestConfig(dir, { ...project, force })]
  if (project.typescript) changes.push(setUpTsconfig(dir, force))
  const names = new Set<string>()
  for (const extension of found.files) {
    const file = join(dir, 'test', `${testName(extension, project.manifest.name, names)}.test.${testExtension(project)}`)
    changes.push(writeFile(dir, file, firstTest({ extension, registrations: await registrationsOf(dir, extension), typescript: project.typescript }), force))
  }
  changes.push(addTestScript(project))
  for (const change of changes) log(describeChange(change))
  log('')
  log('Next:')
  const missing = ['vitest', 'vitest-environment-pi', project.declaredPi ? undefined : suggestedPi()].filter(
    (name): name is string => name !== undefined && !dependencyNames(project.manifest).includes(name),
  )
  if (missing.length > 0) log(`  npm i -D ${missing.join(' ')}`)
  for (const change of changes.filter((c) => c.outcome === 'kept')) log(`  ${change.file}: ${change.note}`)
  log('  npm test')
  log(`  then grow ${relative(dir, join(dir, 'test'))}/*.test.* with when(...) turns, mocks and matchers (node_modules/vitest-environment-pi/README.md, and docs/ beside it)`)
  return changes
}

/** package.json with `"test": "vitest run"`: npm's placeholder replaced in place, else the file written anew. */
function withTestScript({ manifest, manifestText }: ExtensionProject): string {
  const placeholder = /("scripts"\s*:\s*\{[^}]*?"test"\s*:\s*)"(?:[^"\\]|\\.)*"/
  if (manifest.scripts?.test !== undefined && placeholder.test(manifestText)) return manifestText.replace(placeholder, '$1"vitest run"')
  const written = { ...manifest, scripts: { ...manifest.scripts, test: 'vitest run' } }
  return `${JSON.stringify(written, null, indentOf(manifestText))}\n`
}

/** The test's file name: the extension's, or its folder's for an index file, each used once. */
function testName(extension: string, packageName: string | undefined, taken: Set<string>): string {
  const file = basename(extension).replace(/\.[cm]?[jt]sx?$/, '')
  const folder = basename(dirname(extension))
  const base = file !== 'index' ? file : folder !== '.' ? folder : (packageName?.replace(/^@[^/]+\//, '').replace(/[^\w.-]/g, '-') ?? 'extension')
  let name = base
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`
  taken.add(name)
  return name
}

/** ES module test files either way: .mts/.mjs where .ts/.js would be CommonJS. */
function testExtension({ typescript, esm }: ExtensionProject): string {
  return typescript ? (esm ? 'ts' : 'mts') : esm ? 'js' : 'mjs'
}

function addTestScript(project: ExtensionProject): Change {
  const current = project.manifest.scripts?.test
  if (current !== undefined && !NPM_DEFAULT_TEST.test(current)) return { file: 'package.json', outcome: 'unchanged', note: `it has a test script (${current})` }
  return editFile(project.dir, project.manifestFile, project.manifestText, withTestScript(project), 'added "test": "vitest run"')
}

