// `npm run compat [-- VERSION ...]`: the suite's core subset against each release of the 1.x line that the peer
// range in package.json covers (each minor's newest patch, from the registry), or against the releases named.
//
// How the harness gets that Pi: Node and Vite resolve a bare import from the importing file's own directory
// up, and ESM ignores NODE_PATH, so the suite has to run from a tree whose node_modules holds that Pi. Each
// release gets .cache/compat/<version>/ with two folders:
//   pi/    that release of @earendil-works/pi-coding-agent and its pi-ai, installed by npm (registry only);
//   repo/  a copy of this checkout (git's files), whose node_modules is a folder of symlinks to this
//          checkout's packages, except @earendil-works, which links to pi/node_modules/@earendil-works.
// Both resolve symlinks to real paths, so Pi's own imports resolve inside pi/, and Vitest and everything
// else stay this checkout's. The folder is removed when the release passes, and kept (and named) when not.
import { execFileSync, spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const SCRATCH = join(ROOT, '.cache/compat')
const RESULTS = join(SCRATCH, 'results.md')
const CODING_AGENT = '@earendil-works/pi-coding-agent'
const PI_AI = '@earendil-works/pi-ai'
// The core subset: loading, the playbook, tool mocks and blocks, the UI, exec and HTTP, records, sessions,
// the model services (releases before 0.80 keep 0.73's auth storage and model registry), and the bundle of
// Pi every file imports (all of them run on it, as the suite's config builds it).
const SUBSET = [
  'test/credentials.test.ts',
  'test/loading.test.ts',
  'test/pi-line.test.ts',
  'test/playbook.test.ts',
  'test/mock-tools.test.ts',
  'test/mock-ui.test.ts',
  'test/io-mocks.test.ts',
  'test/mocks/mock-exec.test.ts',
  'test/mocks/mock-http.test.ts',
  'test/records.test.ts',
  'test/session.test.ts',
  'test/pi-bundle.test.ts',
]
// A bound on one release's install and tests: a hung run is killed and counts as failed.
const INSTALL_TIMEOUT_MS = 5 * 60_000
const TEST_TIMEOUT_MS = 10 * 60_000

// ---- versions: which releases the peer range covers ----

const parse = (version) => version.split('.').map(Number)
function compare(a, b) {
  const [x, y] = [parse(a), parse(b)]
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i]
  return 0
}

/** `range` (comparators `>=`, `>`, `<=`, `<`, `=`, `^`, joined by spaces and `||`) holds `version`. */
function satisfies(version, range) {
  return range.split('||').some((set) =>
    set.trim().split(/\s+/).every((comparator) => {
      const [, op, bound] = /^(>=|<=|>|<|=|\^)?(\d+\.\d+\.\d+)$/.exec(comparator) ?? []
      if (!bound) throw new Error(`compat: cannot read the comparator "${comparator}" in the peer range "${range}"`)
      const c = compare(version, bound)
      if (op === '^') {
        // ^1.2.3 := >=1.2.3 <2.0.0; ^0.2.3 := >=0.2.3 <0.3.0 (npm's caret)
        const [major, minor] = parse(bound)
        const [vMajor, vMinor] = parse(version)
        return c >= 0 && vMajor === major && (major > 0 || vMinor === minor)
      }
      return { '>=': c >= 0, '>': c > 0, '<=': c <= 0, '<': c < 0 }[op] ?? c === 0
    }),
  )
}

const npmView = (name) => JSON.parse(execFileSync('npm', ['view', name, 'versions', '--json'], { encoding: 'utf8' }))

/** Each minor's newest patch among `versions` (releases only) that `range` holds. */
function newestPatches(versions, range) {
  const byMinor = new Map()
  for (const v of versions.filter((v) => /^\d+\.\d+\.\d+$/.test(v) && satisfies(v, range))) {
    const minor = v.split('.').slice(0, 2).join('.')
    if (!byMinor.has(minor) || compare(v, byMinor.get(minor)) > 0) byMinor.set(minor, v)
  }
  return [...byMinor.values()].sort(compare)
}

// ---- processes: each child is a process group, killed whole on timeout or interrupt ----

let running
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (running) killGroup(running)
    console.error(`compat: ${signal}, stopped`)
    process.exit(130)
  })
}
function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL')
  } catch {
    // already gone
  }
}

/** Runs `command` in its own process group with output to `log`; resolves with its exit code (null: killed). */
function run(command, args, { cwd, env, log, timeoutMs }) {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    running = child
    const chunks = []
    child.stdout.on('data', (d) => chunks.push(d))
    child.stderr.on('data', (d) => chunks.push(d))
    const timer = setTimeout(() => {
      chunks.push(Buffer.from(`\ncompat: killed after ${timeoutMs / 1000} s\n`))
      killGroup(child)
    }, timeoutMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      running = undefined
      // A test left a grandchild behind: its group goes with the run.
      killGroup(child)
      writeFileSync(log, Buffer.concat(chunks))
      done(code)
    })
  })
}

// ---- one release ----

// git's files (tracked and new, not ignored), as the suite sees them in this checkout.
const checkoutFiles = () =>
  execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(join(ROOT, file)))

function copyCheckout(repo, piModules) {
  for (const file of checkoutFiles()) {
    mkdirSync(dirname(join(repo, file)), { recursive: true })
    cpSync(join(ROOT, file), join(repo, file))
  }
  const modules = join(repo, 'node_modules')
  mkdirSync(modules)
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    // .vite and .vitest are caches: the copy makes its own.
    if (entry.startsWith('.') || entry === '@earendil-works') continue
    symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry))
  }
  symlinkSync(join(piModules, '@earendil-works'), join(modules, '@earendil-works'))
}

async function testRelease(version, piAiVersions) {
  const dir = join(SCRATCH, version)
  const [pi, repo] = [join(dir, 'pi'), join(dir, 'repo')]
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(pi, { recursive: true })
  let started = Date.now()
  const seconds = () => Math.round((Date.now() - started) / 1000)

  // pi-ai of the same version when published, else the one the coding agent depends on.
  const piAi = piAiVersions.includes(version) ? version : undefined
  const dependencies = { [CODING_AGENT]: version, ...(piAi && { [PI_AI]: piAi }) }
  writeFileSync(join(pi, 'package.json'), JSON.stringify({ private: true, dependencies }, null, 2))
  // No install scripts, as this checkout's own `npm ci` runs none; metadata from npm's cache when it has it.
  const npmArgs = ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', '--prefer-offline']
  const installLog = join(dir, 'install.log')
  if ((await run('npm', npmArgs, { cwd: pi, env: process.env, log: installLog, timeoutMs: INSTALL_TIMEOUT_MS })) !== 0) {
    return { version, piAi: piAi ?? '?', result: 'does not install', ok: false, install: seconds(), tests: 0, kept: installLog }
  }
  const install = seconds()
  const installed = (name) => JSON.parse(readFileSync(join(pi, 'node_modules', name, 'package.json'), 'utf8'))
  const agent = installed(CODING_AGENT)
  const piAiInstalled = installed(PI_AI).version
  const node = agent.engines?.node ?? '*'
  const nodeMin = /^>=\s*(\d+\.\d+\.\d+)$/.exec(node.trim())?.[1]
  if (nodeMin && compare(process.versions.node, nodeMin) < 0) {
    rmSync(dir, { recursive: true, force: true })
    return { version, piAi: piAiInstalled, result: `skipped: needs Node ${node}`, ok: true, install, tests: 0 }
  }
  started = Date.now()

  copyCheckout(repo, join(pi, 'node_modules'))
  const report = join(dir, 'report.json')
  const vitest = join(repo, 'node_modules/vitest/vitest.mjs')
  const args = [vitest, 'run', ...SUBSET, '--maxWorkers=1', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`]
  const env = { ...process.env, VITEST_PI_PACKAGE: CODING_AGENT, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}` }
  const testLog = join(dir, 'vitest.log')
  const code = await run(process.execPath, args, { cwd: repo, env, log: testLog, timeoutMs: TEST_TIMEOUT_MS })
  const vitestReport = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : undefined
  const files = vitestReport?.testResults ?? []
  const failures = files.flatMap((file) => {
    const name = file.name.slice(repo.length + 1)
    const failed = file.assertionResults.filter((a) => a.status === 'failed').map((a) => `${name} > ${a.fullName}`)
    // A file that fails before its tests run (it does not load) has no failed test of its own.
    return failed.length > 0 || file.status !== 'failed' ? failed : [`${name} did not load: ${(file.message ?? 'see the log').split('\n')[0]}`]
  })
  const passed = vitestReport?.numPassedTests ?? 0
  const failed = vitestReport ? failures.length : '?'
  const ok = code === 0 && failed === 0
  if (ok) rmSync(dir, { recursive: true, force: true })
  const skipped = vitestReport?.numPendingTests ? `, ${vitestReport.numPendingTests} skipped` : ''
  // A run can fail with every test passed: an unhandled error, or the network audit's teardown.
  const exit = code === null ? ' (killed: timed out)' : code !== 0 && failed === 0 ? ` (vitest exited with ${code})` : ''
  const result = `${passed} passed, ${failed} failed${skipped}${exit}`
  return { version, piAi: piAiInstalled, result, ok, install, tests: seconds(), failures, kept: ok ? undefined : testLog }
}

// ---- main ----

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const range = pkg.peerDependencies[CODING_AGENT]
const named = process.argv.slice(2)
const releases = named.length > 0 ? named : newestPatches(npmView(CODING_AGENT), range)
const piAiVersions = npmView(PI_AI)
console.log(`compat: ${CODING_AGENT} ${releases.join(', ')} (peer range ${range}), Node ${process.versions.node}`)
console.log(`compat: core subset ${SUBSET.length} files, scratch folders in ${SCRATCH}`)
mkdirSync(SCRATCH, { recursive: true })

const rows = []
for (const version of releases) {
  const row = await testRelease(version, piAiVersions)
  rows.push(row)
  const log = row.kept ? `; log: ${row.kept}` : ''
  console.log(`compat: ${version}: ${row.ok ? 'ok' : 'FAILED'}, ${row.result} (install ${row.install} s, tests ${row.tests} s)${log}`)
  // The first few say what broke; the log has the rest.
  for (const failure of (row.failures ?? []).slice(0, 8)) console.log(`  ✗ ${failure}`)
  if (row.failures?.length > 8) console.log(`  … and ${row.failures.length - 8} more`)
}

const table = [
  `Core subset (${SUBSET.length} files) on Node ${process.versions.node}, ${new Date().toISOString().slice(0, 10)}:`,
  '',
  `| ${CODING_AGENT} | pi-ai | core subset | install, s | tests, s |`,
  '|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.version} | ${r.piAi} | ${r.ok ? '' : 'FAILED: '}${r.result} | ${r.install} | ${r.tests} |`),
  '',
].join('\n')
writeFileSync(RESULTS, table)
console.log(`\n${table}\ncompat: written to ${RESULTS}`)
const failed = rows.filter((r) => !r.ok)
if (failed.length > 0) {
  console.log(`compat: ${failed.length} failed; their folders are kept for inspection: ${failed.map((r) => join(SCRATCH, r.version)).join(', ')}`)
  process.exitCode = 1
}
