// The tree reads as the data flow: each folder of src/ imports only the stages below it, src/ never
// imports Vitest, and no module grows past what a reader holds in their head.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '..')
// Lowest first: a folder may import its own files and the folders before it.
const STAGES = ['shared', 'pi', 'records', 'model', 'mocks', 'isolation', 'session', 'project', 'process', 'audit'] as const

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file))
}

// Each import and re-export of `file`: its specifier, and whether it is type-only (gone from the build).
function importsWithKind(file: string): { specifier: string; typeOnly: boolean }[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  return [...text.matchAll(/^(?:import|export)(\s+type\b)?[^'"]*?\bfrom\s+'([^']+)'|^import\s+'([^']+)'/gm)].map((m) => ({
    specifier: (m[2] ?? m[3])!,
    typeOnly: m[1] !== undefined,
  }))
}

const importsOf = (file: string): string[] => importsWithKind(file).map((entry) => entry.specifier)

const stageOf = (file: string) => relative(join(ROOT, 'src'), resolve(ROOT, file)).split('/')[0]!

it('each stage of src/ imports only the stages below it', () => {
  const upward: string[] = []
  for (const file of sources('src')) {
    const from = STAGES.indexOf(stageOf(file) as never)
    for (const specifier of importsOf(file).filter((s) => s.startsWith('.'))) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), specifier))
      const to = STAGES.indexOf(stageOf(target) as never)
      // src/index.ts (the public surface) sits above every stage.
      if (from !== -1 && (to === -1 || to > from)) upward.push(`${file} -> ${target}`)
    }
  }
  expect(upward).toEqual([])
})

it('src/ knows nothing of Vitest, and environment/ alone reaches into its internals', () => {
  const vitestImports = sources('src').filter((file) => importsOf(file).some((s) => s === 'vitest' || s.startsWith('vitest/') || s.startsWith('@vitest/')))
  expect(vitestImports).toEqual([])
  const internals = [...sources('src'), ...sources('environment'), ...sources('matchers')].filter((file) =>
    /__vitest_worker__|evaluatedModules|invalidateModule/.test(readFileSync(join(ROOT, file), 'utf8')),
  )
  expect(internals).toEqual(['environment/vitest-internals.ts'])
})

it('no module of src/, environment/ or matchers/ is over 300 lines', () => {
  const long = [...sources('src'), ...sources('environment'), ...sources('matchers')]
    .map((file) => [file, readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1] as const)
    .filter(([, lines]) => lines > 300)
  expect(long).toEqual([])
})

it("outside src/pi/, no module imports Pi: Pi's types come from src/pi/types.ts, the installed line's", () => {
  const naming = [...sources('src'), ...sources('environment'), ...sources('matchers')]
    .filter((file) => !file.startsWith('src/pi/'))
    // The scripted model the process depth loads into the child is an extension: it names Pi only for types, and imports
    // the running line's modules by path (src/pi/line.ts says which).
    .filter((file) => file !== 'src/process/child-extension.ts')
    .filter((file) => importsOf(file).some((s) => /^@(mariozechner|earendil-works)\//.test(s)))
  expect(naming).toEqual([])
})

// What importing `file` loads: its imports that are not type-only, followed through the project's own files.
function loadedBy(file: string, loaded = new Set<string>()): Set<string> {
  for (const { specifier } of importsWithKind(file).filter((entry) => !entry.typeOnly)) {
    const target = specifier.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), specifier.replace(/\.js$/, '.ts'))) : specifier
    if (loaded.has(target)) continue
    loaded.add(target)
    if (target.endsWith('.ts')) loadedBy(target, loaded)
  }
  return loaded
}

it('importing the harness loads what a test session needs: the sandbox, the runner and node:http load on first use', () => {
  // node:http's ESM exports load Node's own fetch on Node 22 and later: it comes with the HTTP interception.
  const onFirstUse = /^src\/project\/(sandbox|runner|install-problems|sandbox-checks)\.ts$|^tinyexec$|^node:http$/
  for (const entry of ['src/index.ts', 'environment/index.ts']) {
    const loaded = loadedBy(entry)
    expect(loaded.has('src/session/create.ts'), entry).toBe(true)
    expect([...loaded].filter((file) => onFirstUse.test(file)), entry).toEqual([])
  }
})
