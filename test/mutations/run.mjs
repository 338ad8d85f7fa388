#!/usr/bin/env node
// Mutation rounds: puts plausible one-line bugs into the code, one at a time, and tells which the default test
// run (the `unit` project) catches. Each mutation is applied in a scratch copy of the checkout (node_modules
// linked, not copied), never in this checkout, so src/ is never left mutated, even on Ctrl-C; the copy is
// removed on exit. For speed each mutation runs only the unit test files its entry names (`tests`); they are
// the files that test that code, and the score is for the unit project: an e2e file named there is not run.
//
//   node test/mutations/run.mjs [round.json ...] [--only=id,id] [--keep-going] [--no-baseline] [--all-tests]
//
// round.json (default: every test/mutations/*.json) is an array of
//   { "id": "temp-settle-early", "file": "src/isolation/temp-dirs.ts", "original": "<exact snippet>",
//     "replacement": "<snippet>", "breaks": "the promise it breaks", "tests": ["test/temp-dirs.test.ts"],
//     "build": false }
// `original` must occur exactly once in `file`. `build: true` (or a test file that names dist/, unless `build: false`) builds
// the copy first. `--all-tests` runs the whole unit project for each mutation instead of the named files (slow).
// Before the mutations, each set of test files is run once unmutated (`--no-baseline` skips it): a set that
// fails unmutated would count every mutation as caught. Results: a table, and test/mutations/results/<round>.json.
import { spawn } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const HERE = join(ROOT, 'test/mutations')
const PER_RUN_MS = 10 * 60_000
const SKIP = new Set(['node_modules', '.git', '.cache', 'coverage', '.vitest-attachments'])

const args = process.argv.slice(2)
const flag = (name) => args.includes(`--${name}`)
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',')
const rounds = args.filter((a) => !a.startsWith('--'))
const files = rounds.length > 0 ? rounds.map((f) => resolve(f)) : readdirSync(HERE).filter((f) => f.endsWith('.json')).map((f) => join(HERE, f))

/** Every entry of the rounds, checked: a mistake in a round names its file and entry. */
function readRound(file) {
  const entries = JSON.parse(readFileSync(file, 'utf8'))
  if (!Array.isArray(entries)) throw new Error(`${file}: must be an array of mutations`)
  const ids = new Set()
  return entries.map((entry, index) => {
    const where = `${relative(ROOT, file)}[${index}]${entry?.id ? ` (${entry.id})` : ''}`
    for (const key of ['id', 'file', 'original', 'breaks']) {
      if (typeof entry?.[key] !== 'string' || entry[key] === '') throw new Error(`${where}: "${key}" must be a non-empty string`)
    }
    // An empty replacement deletes the original.
    if (typeof entry.replacement !== 'string') throw new Error(`${where}: "replacement" must be a string`)
    if (!Array.isArray(entry.tests) || entry.tests.length === 0) throw new Error(`${where}: "tests" must list the unit test files to run`)
    if (ids.has(entry.id)) throw new Error(`${where}: id "${entry.id}" is used twice`)
    ids.add(entry.id)
    const source = readFileSync(join(ROOT, entry.file), 'utf8')
    const found = source.split(entry.original).length - 1
    if (found !== 1) throw new Error(`${where}: "original" occurs ${found} times in ${entry.file}; it must occur exactly once`)
    if (entry.original === entry.replacement) throw new Error(`${where}: "replacement" is the original`)
    for (const test of entry.tests) if (!existsSync(join(ROOT, test))) throw new Error(`${where}: test file ${test} does not exist`)
    return { ...entry, round: basename(file, '.json') }
  })
}

// The scratch copy: the checkout without node_modules (linked) and .git; removed however the run ends.
const scratch = mkdtempSync(join(tmpdir(), 'pi-mutations-'))
// Readable by all, as a checkout is: a test runs a child as another user (unreadable-dirs) from it.
chmodSync(scratch, 0o755)
let child
const cleanUp = () => {
  if (child && child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {}
  }
  rmSync(scratch, { recursive: true, force: true })
}
process.on('exit', cleanUp)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => process.exit(130))

cpSync(ROOT, scratch, { recursive: true, filter: (src) => src === ROOT || !SKIP.has(relative(ROOT, src).split('/')[0]) })
symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'))

/** Runs a command in the copy (its own process group, so a timeout kills all of it); resolves with its exit code and output. */
function inCopy(command, commandArgs) {
  return new Promise((done) => {
    let out = ''
    child = spawn(command, commandArgs, { cwd: scratch, detached: true, env: { ...process.env, CI: '1', FORCE_COLOR: '0' } })
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const timer = setTimeout(() => {
      out += `\n[mutations] timed out after ${PER_RUN_MS / 1000} s\n`
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {}
    }, PER_RUN_MS)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      done({ code: code ?? (signal ? 128 : 1), out, timedOut: signal === 'SIGKILL' })
    })
  })
}

const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs')
// --bail: the first failing test is enough to call the mutation caught.
const runTests = (tests, bail = true) => inCopy(process.execPath, [vitest, 'run', '--project', 'unit', ...(bail ? ['--bail=1'] : []), ...(flag('all-tests') ? [] : tests)])
const build = () => inCopy(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'])
// `build` says; else a test file that names dist/ gets a build (`"build": false` when it runs none of the mutated code from there).
const needsBuild = (entry) => entry.build ?? entry.tests.some((t) => /['"/]dist\//.test(readFileSync(join(ROOT, t), 'utf8')))

/** The failing tests' names, from Vitest's default reporter: what caught the mutation. */
function failedTests(output) {
  // eslint-disable-next-line no-control-regex
  const out = output.replace(/\x1b\[[0-9;]*m/g, '')
  const names = [...out.matchAll(/^\s*(?:FAIL|×)\s+(.+?)(?:\s+\d+ms)?$/gm)].map((m) => m[1].trim())
  return [...new Set(names)].slice(0, 4)
}

const entries = files.flatMap(readRound).filter((e) => !only || only.includes(e.id))
if (entries.length === 0) throw new Error('no mutations selected')
console.log(`[mutations] ${entries.length} mutation(s), scratch copy ${scratch}`)

if (entries.some(needsBuild)) {
  const built = await build()
  if (built.code !== 0) throw new Error(`the unmutated copy does not build:\n${built.out}`)
}
if (!flag('no-baseline')) {
  for (const key of new Set(entries.map((e) => e.tests.join(' ')))) {
    const base = await runTests(key.split(' '), false)
    if (base.code !== 0) {
      console.error(base.out.slice(-4000))
      throw new Error(`unmutated, these tests fail: ${key}; fix that first (every mutation would count as caught)`)
    }
    console.log(`[mutations] baseline green: ${key}`)
  }
}

const results = []
// Written after each mutation: a run stopped halfway keeps what it found. A run of some ids (--only)
// replaces their results and keeps the others'.
function save(round) {
  mkdirSync(join(HERE, 'results'), { recursive: true })
  const out = join(HERE, 'results', `${round}.json`)
  const now = results.filter((r) => r.round === round)
  const before = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')).filter((r) => !now.some((n) => n.id === r.id)) : []
  writeFileSync(out, `${JSON.stringify([...before, ...now], null, 2)}\n`)
}
for (const entry of entries) {
  const target = join(scratch, entry.file)
  const original = readFileSync(target, 'utf8')
  writeFileSync(target, original.replace(entry.original, () => entry.replacement))
  const started = Date.now()
  let outcome
  try {
    let built = { code: 0, out: '' }
    if (needsBuild(entry)) built = await build()
    outcome = built.code !== 0 ? { code: built.code, out: built.out, by: ['the build (tsc)'] } : await runTests(entry.tests)
  } finally {
    writeFileSync(target, original)
  }
  const caught = outcome.code !== 0
  const by = outcome.by ?? (outcome.timedOut ? ['a timeout (hang)'] : failedTests(outcome.out))
  const seconds = Math.round((Date.now() - started) / 1000)
  results.push({ id: entry.id, round: entry.round, file: entry.file, breaks: entry.breaks, tests: entry.tests, caught, by: caught ? by : [], seconds })
  console.log(`${caught ? 'CAUGHT  ' : 'SURVIVED'} ${entry.id} (${seconds} s)${caught ? ` by ${by.join('; ')}` : ''}`)
  save(entry.round)
}

const caught = results.filter((r) => r.caught).length
console.log(`\n[mutations] caught ${caught} of ${results.length} (${Math.round((100 * caught) / results.length)} %)`)
for (const r of results.filter((r) => !r.caught)) console.log(`  survived: ${r.id} — ${r.breaks}`)
