// npm run bench: the built harness (dist/) against bare Pi doing the same work, in one process.
// It reports; it does not assert. Options:
//   --only=a,b,c,d,e,f,g  run some scenarios (the first-iteration figure is always taken)
//   --side=harness|bare  run one side only in (a) and (b) (for CPU profiles)
//   --iterations=N     (a) iterations per side (default 200)
//   --calls=100,1000   (b) call counts; --rounds=N timed rounds per count (default 15), after one warm-up round
//   --c-rounds=N       (c) runs of each side's file (default 3)
//   --e-rounds=N       (e) runs of each configuration (default 3)
//   --f-rounds=N       (f) audits of the whole default corpus (default 5), after one warm-up audit
//   --g-rounds=N       (g) process sessions and bare `pi --mode rpc` turns per side (default 5), after one warm-up each
//   --keep             keep the generated .cache/bench-* directory
//   --profile=DIR      CPU profiles of the timed (a) blocks and (b) turns, per side, in this process (timings inflated)
//   --help             print these options
// Internal: --first=harness|bare (prints the first iteration of a fresh process as JSON).
import { execFileSync, execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os, { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { bashAnswer, bashCallSteps, standardExtension, standardSteps, STANDARD_PROMPT } from './lib/standard.mjs'
import { MB, median, quantile, round, summary } from './lib/stats.mjs'
import { createProfiler } from './lib/profiler.mjs'
import { PI_LINE } from './lib/pi-line.mjs'

// Pi's own backstops, as for any in-process Pi; the harness sets (and restores) its own over these.
Object.assign(process.env, { PI_OFFLINE: '1', PI_TELEMETRY: '0', JITI_FS_CACHE: 'false' })

// A mistyped option fails at once, naming it, instead of starting a run of several minutes without it.
const OPTIONS = { only: 'string', side: 'string', iterations: 'string', calls: 'string', rounds: 'string', 'c-rounds': 'string', 'e-rounds': 'string', 'f-rounds': 'string', 'g-rounds': 'string', keep: 'boolean', first: 'string', profile: 'string', help: 'boolean' }
let parsed
try {
  parsed = parseArgs({ options: Object.fromEntries(Object.entries(OPTIONS).map(([name, type]) => [name, { type }])) }).values
} catch (error) {
  process.stderr.write(`bench: ${error.message}\n`)
  process.exit(2)
}
if (parsed.help) {
  const header = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').filter((line) => line.startsWith('//'))
  process.stdout.write(`${header.slice(0, header.findIndex((line) => line.startsWith('// Internal'))).map((line) => line.slice(3)).join('\n')}\n`)
  process.exit(0)
}
if (typeof globalThis.gc !== 'function') {
  process.stderr.write('bench: run it with node --expose-gc (npm run bench does): it collects garbage between measurements\n')
  process.exit(2)
}
const args = new Map(Object.entries(parsed))
// A count is a positive integer: anything else stops the bench naming the option, before minutes of running.
function positiveInteger(name, text) {
  const value = Number(text)
  if (Number.isInteger(value) && value >= 1) return value
  process.stderr.write(`bench: --${name} takes a positive integer, not '${text}'\n`)
  process.exit(2)
}
const countOption = (name, fallback) => (args.has(name) ? positiveInteger(name, args.get(name)) : fallback)
const SCENARIOS = ['a', 'b', 'c', 'd', 'e', 'f', 'g']
const only = new Set((args.get('only') ?? SCENARIOS.join(',')).split(','))
const side = args.get('side') ?? 'both'
const runs = (which) => side === 'both' || side === which
const ITERATIONS = countOption('iterations', 200)
const WARMUP = 30
const CALL_COUNTS = (args.get('calls') ?? '100,1000').split(',').map((count) => positiveInteger('calls', count))
// Fifteen: a long turn moves with the machine by more than the 10 % (b) must resolve (bench/README.md).
const CALL_ROUNDS = countOption('rounds', 15)
const VITEST_TESTS = 100
const VITEST_ROUNDS = countOption('c-rounds', 3)
const SUITE = { files: 20, sessions: 5, rounds: countOption('e-rounds', 3) }
const AUDIT_ROUNDS = countOption('f-rounds', 5)
const PROCESS_ROUNDS = countOption('g-rounds', 5)
const FIRST_PROCESSES = 5
const HELD_ITERATIONS = 100
const LOUD_MB = 200
const HELD_GC_OVER_MB = 16
const REPO = fileURLToPath(new URL('..', import.meta.url))
const SCRIPT = fileURLToPath(import.meta.url)
const profiler = await createProfiler(args.get('profile'))

// Other work may rebuild dist/ while the bench runs; the table says so when it happened.
function distStamp() {
  const newest = (dir) =>
    readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => {
      const path = join(dir, entry.name)
      return Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
    }, 0)
  try {
    return newest(join(REPO, 'dist'))
  } catch {
    return 0
  }
}
const distAtStart = distStamp()

const standard = { extension: standardExtension, bashAnswer, steps: standardSteps, prompt: STANDARD_PROMPT }
const bareRoot = mkdtempSync(join(tmpdir(), 'pi-bench-bare-'))
const bareDirs = { cwd: bareRoot, agentDir: bareRoot }
const now = () => performance.now()
const log = (...parts) => process.stderr.write(`${parts.join(' ')}\n`)

// ---------- checks: both sides must have done the standard work ----------

function checkHarnessStandard(t) {
  const blocked = t.events.blockedCalls()
  const greet = t.events.toolResultsFor('greet')[0]
  if (blocked.length !== 1 || blocked[0].blockReason !== 'rm -rf is not allowed' || greet?.text !== 'Hello, Ada!' || t.events.lastAssistantText() !== 'done') {
    throw new Error('harness did not do the standard work')
  }
}

function checkBareStandard({ messages, errors }) {
  const results = messages.filter((m) => m.role === 'toolResult')
  const text = (m) => m.content.map((c) => c.text).join('')
  const last = messages.at(-1)
  if (
    errors.length > 0 ||
    results.length !== 2 ||
    text(results[0]) !== 'Hello, Ada!' ||
    !results[1].isError ||
    text(results[1]) !== 'rm -rf is not allowed' ||
    last.role !== 'assistant' ||
    text(last) !== 'done'
  ) {
    throw new Error('bare Pi did not do the standard work')
  }
}

// ---------- first iterations: the first harness session of this process, after Pi is imported ----------
// A first iteration is one sample per process; fresh child processes (--first=harness|bare) add more.
// Pi is the line the harness runs (VITEST_PI_PACKAGE, else the first installed line that runs on this
// Node); the bare side uses the same line, and child processes inherit the choice through the environment.

const importStarted = now()
await import(PI_LINE.packageName)
const piImportMs = now() - importStarted
// Pi's import leaves tens of MB of garbage and a collection already under way; the collector finishes it at
// the next turns of the event loop, inside whatever is timed next on either side. It is Pi's, not the
// harness's nor the bare lib's: collected here, before either side's import and first iteration.
globalThis.gc()
await new Promise((resolve) => setTimeout(resolve, 0))

if (args.get('first') === 'bare') {
  const started = now()
  const bare = await import('./lib/bare.mjs')
  const importMs = now() - started
  const t0 = now()
  const result = await bare.bareStandardIteration(bareDirs, standard)
  const firstIterationMs = now() - t0
  checkBareStandard(result)
  rmSync(bareRoot, { recursive: true, force: true })
  process.stdout.write(JSON.stringify({ piImportMs, importMs, firstIterationMs }))
  process.exit(0)
}

const harnessImportStarted = now()
const harness = await import('vitest-environment-pi/core')
const harnessImportMs = now() - harnessImportStarted
const { calls, createTestSession, says, when } = harness

const standardTurn = () => when(STANDARD_PROMPT, [calls('greet', { name: 'Ada' }), calls('bash', { command: 'rm -rf /' }), says('done')])

async function harnessIteration(seeds = {}) {
  const t = await createTestSession({ extensions: [standardExtension], mockTools: { bash: bashAnswer }, ...seeds })
  await t.run(standardTurn())
  await t.dispose()
  return t
}

// Ten small files a test might seed: settings and config in the home, sources and a README in the cwd.
const TEN_SEEDS = {
  home: {
    '.pi/agent/settings.json': { defaultThinkingLevel: 'off', permissions: { level: 'ask' } },
    '.pi/agent/guard.json': { deny: ['rm -rf', 'git push --force'] },
    '.pi/agent/notes.md': '# notes\n',
    '.config/tool/config.json': { verbose: false },
  },
  files: {
    '.pi/settings.json': { packages: [] },
    'AGENTS.md': '# Agents\nBe careful.\n',
    'package.json': { name: 'seeded', version: '1.0.0', type: 'module' },
    'src/a.ts': 'export const a = 1\n',
    'src/b.ts': "export const b = 'b'\n",
    'README.md': '# seeded\n',
  },
}
const seededIteration = () => harnessIteration(TEN_SEEDS)
// The same files with one of them different in each session: no session takes an earlier one's kept world.
let seededApartCount = 0
const seededApartIteration = () => harnessIteration({ ...TEN_SEEDS, files: { ...TEN_SEEDS.files, 'README.md': `# seeded ${seededApartCount++}\n` } })

// The disk's own part of seeding, with no harness or Pi: a home and a cwd made, the same ten files written into
// them, and both removed, by plain Node (synchronously), against the two dirs made and removed alone.
function diskIteration(seeds = {}) {
  for (const files of [seeds.home ?? {}, seeds.files ?? {}]) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-seed-floor-'))
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true })
      writeFileSync(join(dir, path), typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`)
    }
    rmSync(dir, { recursive: true })
  }
}

async function checkSeeded() {
  const t = await createTestSession({ extensions: [standardExtension], ...TEN_SEEDS })
  const seededFiles = [...Object.keys(TEN_SEEDS.home).map((path) => join(t.home, path)), ...Object.keys(TEN_SEEDS.files).map((path) => join(t.cwd, path))]
  const missing = seededFiles.filter((path) => !existsSync(path))
  await t.dispose()
  if (missing.length > 0) throw new Error(`(a) seeded: ${missing.join(', ')} not written`)
}

const firstStarted = now()
checkHarnessStandard(await harnessIteration())
const firstIterationMs = now() - firstStarted

if (args.get('first') === 'harness') {
  rmSync(bareRoot, { recursive: true, force: true })
  process.stdout.write(JSON.stringify({ piImportMs, importMs: harnessImportMs, firstIterationMs }))
  process.exit(0)
}
log(`Pi ${PI_LINE.packageName}@${PI_LINE.version} on Node ${process.versions.node}: import ${piImportMs.toFixed(0)} ms; harness import ${harnessImportMs.toFixed(1)} ms; first harness iteration ${firstIterationMs.toFixed(1)} ms`)

const bare = await import('./lib/bare.mjs')

// Before Node 24, an AsyncLocalStorage once entered puts a hook on every promise of the process until it is
// disabled. The harness's session context (dist internals, by its process key) stays entered after its
// first session, so bare Pi here would pay for the harness's hook, which a process without the harness
// never pays. It is disabled before each bare measurement, when no session is alive; the harness's next
// session enters it again, inside the harness's timing.
const harnessContexts = () => process[Symbol.for('vitest-environment-pi:session-contexts')]

function outsideHarnessContext() {
  const contexts = harnessContexts()
  if (contexts === undefined) return
  if (contexts.alive.length > 0) throw new Error('a harness session is alive before a bare measurement')
  contexts.storage.disable()
}

// Diagnostic, never a user's path: runs `work` with the session context's storage calling straight through and
// left disabled, so that no promise hook runs. Sound only here, one session alive at a time with no leftovers,
// where every question the context answers (whose home, whose HTTP rules, whose script) has one answer.
async function withoutSessionContext(work) {
  const { storage } = harnessContexts()
  storage.disable()
  storage.run = (_store, callback, ...args) => callback(...args)
  try {
    return await work()
  } finally {
    delete storage.run
  }
}

/** Times `turn` after a full collection, and what it leaves retained once collected again. */
async function measureTurn(turn, profileLabel) {
  globalThis.gc()
  const heapBefore = process.memoryUsage().heapUsed
  // Timed inside: starting the profiler takes tens of milliseconds.
  const ms = await profiler.around(profileLabel, async () => {
    const started = now()
    await turn()
    return now() - started
  })
  globalThis.gc()
  return { ms, retainedMB: (process.memoryUsage().heapUsed - heapBefore) / MB }
}

// (a) times each side in blocks: an untimed lead-in, then BLOCK timed iterations, the sides taking turns block
// by block (which goes first alternates, so both share the machine's drift). Both sides leave work running when
// an iteration returns: 1.x's registerProvider starts a catalog refresh it does not await, and the harness removes
// a session's dirs in the background. Run back to back, a side's tail lands in its own next iteration, so every
// timed iteration carries one tail of its own side; only the lead-in can carry the other side's, and it is not
// timed. (Alternating single iterations charged each side's tail to the other: on 1.6, bare's refresh added
// 3-4 ms to the median harness iteration.)
const BLOCK = 10

async function timeInBlocks(iterations, iterationOf, profileLabel) {
  const times = { harness: [], bare: [] }
  for (let block = 0; block * BLOCK < iterations; block++) {
    const order = block % 2 === 0 ? ['harness', 'bare'] : ['bare', 'harness']
    for (const name of order) {
      if (!runs(name)) continue
      if (name === 'bare') outsideHarnessContext()
      await iterationOf[name]()
      await profiler.around(profileLabel && `${profileLabel}-${name}`, async () => {
        for (let i = 0; i < Math.min(BLOCK, iterations - block * BLOCK); i++) {
          const started = now()
          await iterationOf[name]()
          times[name].push(now() - started)
        }
      })
    }
  }
  return times
}

function firstInFreshProcess(which) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--expose-gc', SCRIPT, `--first=${which}`], { cwd: REPO }, (error, stdout) => {
      resolve(error ? { error: error.message } : JSON.parse(stdout))
    })
  })
}

const results = {
  meta: {
    date: new Date().toISOString(),
    node: process.version,
    pi: PI_LINE.version,
    piPackage: PI_LINE.packageName,
    vitest: JSON.parse(readFileSync(join(REPO, 'node_modules/vitest/package.json'), 'utf8')).version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    commit: git(['rev-parse', '--short', 'HEAD']),
    dirtyFiles: git(['status', '--porcelain', '--', 'src', 'environment', 'matchers']).split('\n').filter(Boolean).length,
    argv: process.argv.slice(2),
  },
  first: { thisProcess: { piImportMs, importMs: harnessImportMs, firstIterationMs }, harness: [], bare: [] },
}

function git(gitArgs) {
  try {
    return execFileSync('git', gitArgs, { cwd: REPO, encoding: 'utf8' }).trim()
  } catch {
    return 'unknown'
  }
}

const cacheDir = join(REPO, '.cache', `bench-${process.pid}`)

try {
  if (side === 'both') {
    results.first.harness.push(results.first.thisProcess)
    for (let i = 0; i < FIRST_PROCESSES; i++) {
      if (i > 0) results.first.harness.push(await firstInFreshProcess('harness'))
      results.first.bare.push(await firstInFreshProcess('bare'))
    }
    const firsts = (list) => list.filter((entry) => !entry.error).map((entry) => entry.firstIterationMs.toFixed(1)).join(', ')
    log(`first iterations (ms): harness ${firsts(results.first.harness)}; bare ${firsts(results.first.bare)}`)
  }

  // ---------- (f) the guard audit: one stateless guard against the whole default corpus ----------
  if (only.has('f')) {
    // The quick start's guard: one pattern, so the audit has blocks, allows and over-blocks to record.
    const guard = (pi) => {
      pi.on('tool_call', (event) => (event.toolName === 'bash' && /\brm\s+-rf\b/.test(String(event.input.command)) ? { block: true, reason: 'rm -rf' } : undefined))
    }
    const audit = () => harness.auditGuard({ extensions: [guard] })
    const { entries } = await audit()
    if (entries.length < 200) throw new Error(`(f) the default corpus has ${entries.length} entries, expected 200 or more`)
    const times = []
    for (let round = 0; round < AUDIT_ROUNDS; round++) {
      const started = now()
      await audit()
      times.push(now() - started)
    }
    results.f = { entries: entries.length, rounds: AUDIT_ROUNDS, ...summary(times) }
    log(`(f) audit of ${entries.length} calls: ${times.map((ms) => ms.toFixed(0)).join(', ')} ms`)
  }

  // ---------- (d) runner: peak memory while a script prints 200 MB ----------
  if (only.has('d')) {
    const { runProjectScript } = await import('vitest-environment-pi/runner')
    const { measurePeakGrowth } = await import('./lib/memory.mjs')
    const { drainScript, writeFixture } = await import('./lib/runner-fixture.mjs')
    const fixture = writeFixture(join(cacheDir, 'loud-tests'), LOUD_MB)
    // Each round measures each side twice: the peak growth as it happens (RSS, no forced GC), then what it
    // holds (heap and Buffers, a sample over 16 MB read again after a full GC). Only the second can tell a
    // runner that keeps output from Node's own uncollected pipe Buffers, which bare draining has too.
    const runner = async (collectOverMB) => {
      const h = await measurePeakGrowth(() => runProjectScript({ cwd: fixture, script: 'test', timeoutMs: 300_000 }), { collectOverMB })
      if (h.result.status !== 'passed' || h.result.outputBytes < LOUD_MB * MB) throw new Error(`runner fixture: ${h.result.status}, ${h.result.outputBytes} bytes`)
      return { ...h, result: { status: h.result.status, outputBytes: h.result.outputBytes, durationMs: h.result.durationMs, tailChars: h.result.outputTail.length } }
    }
    const drain = (collectOverMB) => measurePeakGrowth(() => drainScript(fixture), { collectOverMB })
    const d = { harness: [], bare: [], harnessHeld: [], bareHeld: [] }
    for (let round = 0; round < 2; round++) {
      const h = await runner()
      d.harness.push(h)
      const b = await drain()
      d.bare.push(b)
      const hHeld = await runner(HELD_GC_OVER_MB)
      d.harnessHeld.push(hHeld)
      const bHeld = await drain(HELD_GC_OVER_MB)
      d.bareHeld.push(bHeld)
      log(
        `(d) round ${round + 1}: runner +${h.rssGrowthMB.toFixed(1)} MB RSS, +${h.heapGrowthMB.toFixed(1)} MB heap, +${h.externalGrowthMB.toFixed(1)} MB Buffers, ${h.ms.toFixed(0)} ms, ` +
          `holding ${hHeld.heldGrowthMB.toFixed(1)} MB; drain +${b.rssGrowthMB.toFixed(1)} MB RSS, +${b.externalGrowthMB.toFixed(1)} MB Buffers, ${b.ms.toFixed(0)} ms, holding ${bHeld.heldGrowthMB.toFixed(1)} MB`,
      )
    }
    results.d = d
  }

  // ---------- (a) the standard scenario, 200 iterations per side, in alternating blocks ----------
  if (only.has('a')) {
    const bareIteration = () => bare.bareStandardIteration(bareDirs, standard)
    checkBareStandard(await bareIteration())
    for (let i = 0; i < WARMUP; i++) {
      if (runs('harness')) await harnessIteration()
      if (runs('bare')) {
        outsideHarnessContext()
        await bareIteration()
      }
    }
    const times = await timeInBlocks(ITERATIONS, { harness: harnessIteration, bare: bareIteration }, 'a')
    results.a = { iterations: ITERATIONS, warmup: WARMUP, harness: summary(times.harness), bare: summary(times.bare), raw: times }

    // Diagnostic, not a user's path: the same loop with the harness's isolated home held across
    // sessions, as the Vitest environment holds it for a whole file (dist internals, by path).
    if (side === 'both') {
      const { enterIsolation } = await import('../dist/src/isolation/isolation.js')
      const { isolatedBareIteration } = await import('./lib/isolated-bare.mjs')
      const floorIteration = () => isolatedBareIteration(standard)
      const { leave } = await enterIsolation()
      let held
      let floor
      let off
      let seeded
      let seededApart
      let disk
      try {
        held = await timeInBlocks(HELD_ITERATIONS, { harness: harnessIteration, bare: bareIteration }, 'a-held')
        // What the isolation alone costs: bare Pi inside a session's isolation, in the harness's column.
        checkBareStandard(await floorIteration())
        floor = await timeInBlocks(HELD_ITERATIONS, { harness: floorIteration, bare: bareIteration }, 'a-floor')
        // The same, with the session context's promise hook off (before Node 24 it is on every promise).
        off = await withoutSessionContext(() => timeInBlocks(HELD_ITERATIONS, { harness: harnessIteration, bare: bareIteration }, 'a-off'))
        // What seeding costs: the harness with ten small files seeded against the harness with none.
        await checkSeeded()
        seeded = await timeInBlocks(HELD_ITERATIONS, { harness: seededIteration, bare: harnessIteration }, 'a-seeded')
        seededApart = await timeInBlocks(HELD_ITERATIONS, { harness: seededApartIteration, bare: harnessIteration }, 'a-seeded-apart')
        disk = await timeInBlocks(HELD_ITERATIONS, { harness: () => diskIteration(TEN_SEEDS), bare: () => diskIteration() })
      } finally {
        leave()
      }
      results.a.homeHeld = { iterations: HELD_ITERATIONS, harness: summary(held.harness), bare: summary(held.bare), raw: held }
      results.a.isolationFloor = { iterations: HELD_ITERATIONS, isolatedBare: summary(floor.harness), bare: summary(floor.bare), raw: { isolatedBare: floor.harness, bare: floor.bare } }
      results.a.contextOff = { iterations: HELD_ITERATIONS, harness: summary(off.harness), bare: summary(off.bare), raw: off }
      results.a.seeded = { iterations: HELD_ITERATIONS, seeded: summary(seeded.harness), unseeded: summary(seeded.bare), raw: { seeded: seeded.harness, unseeded: seeded.bare } }
      results.a.seededApart = { iterations: HELD_ITERATIONS, seeded: summary(seededApart.harness), unseeded: summary(seededApart.bare), raw: { seeded: seededApart.harness, unseeded: seededApart.bare } }
      results.a.seedDisk = { iterations: HELD_ITERATIONS, seeded: summary(disk.harness), unseeded: summary(disk.bare), raw: { seeded: disk.harness, unseeded: disk.bare } }
    }
    if (side === 'both') {
      log(`(a) median harness ${results.a.harness.median.toFixed(2)} ms, bare ${results.a.bare.median.toFixed(2)} ms`)
    }
  }

  // ---------- (b) N sequential calls in one turn ----------
  if (only.has('b')) {
    // One turn of n calls on one side: its time, and the heap it leaves retained; both sides check the work.
    const callTurn = {
      async harness(n, profileLabel) {
        const t = await createTestSession({ extensions: [standardExtension], mockTools: { bash: bashAnswer } })
        const turn = when('run them', [...Array.from({ length: n }, (_, i) => calls('bash', { command: `echo ${i + 1}` })), says('done')])
        const measured = await measureTurn(() => t.run(turn), profileLabel)
        const results = t.events.toolResultsFor('bash')
        if (results.length !== n || !results.every((r) => r.mocked && !r.isError)) throw new Error(`harness (b): ${results.length} results`)
        await t.dispose()
        return measured
      },
      async bare(n, profileLabel) {
        outsideHarnessContext()
        const { session, errors } = await bare.createBareSession({ ...bareDirs, extension: standardExtension, bashAnswer, steps: bashCallSteps(n) })
        let end
        const measured = await measureTurn(async () => (end = await bare.bareTurn(session, 'run them')), profileLabel)
        const results = end.messages.filter((m) => m.role === 'toolResult' && !m.isError)
        if (results.length !== n || errors.length > 0) throw new Error(`bare (b): ${results.length} results`)
        await bare.disposeBare(session)
        return measured
      },
    }
    const b = {}
    for (const n of CALL_COUNTS) {
      const entry = { harness: [], bare: [], harnessRetainedMB: [], bareRetainedMB: [] }
      // Round 0 is a warm-up of both sides, untimed: the first long turn of a process (or the first after
      // (a)) grows the heap and pays for it, and it would always be the harness's, which goes first.
      for (let round = 0; round <= CALL_ROUNDS; round++) {
        const order = round % 2 === 0 ? ['harness', 'bare'] : ['bare', 'harness']
        for (const name of order) {
          if (!runs(name)) continue
          // The warm-up round is not profiled, as it is not timed.
          const { ms, retainedMB } = await callTurn[name](n, round > 0 ? `b${n}-${name}` : undefined)
          if (round === 0) continue
          entry[name].push(ms)
          entry[`${name}RetainedMB`].push(retainedMB)
        }
        if (round > 0) log(`(b) ${n} calls, round ${round}: harness ${entry.harness.at(-1)?.toFixed(0)} ms, bare ${entry.bare.at(-1)?.toFixed(0)} ms, ratio ${(entry.harness.at(-1) / entry.bare.at(-1)).toFixed(2)}`)
      }
      b[n] = {
        rounds: CALL_ROUNDS,
        warmup: 1,
        harnessMs: median(entry.harness),
        bareMs: median(entry.bare),
        harnessPerCallMs: median(entry.harness) / n,
        barePerCallMs: median(entry.bare) / n,
        // Each round's two turns run back to back: their ratio compares the sides under the same conditions,
        // where the ratio of the sides' medians can compare a fast turn with a slow one (bench/README.md).
        roundRatio: median(entry.harness.map((ms, i) => ms / entry.bare[i])),
        harnessRetainedMB: median(entry.harnessRetainedMB),
        bareRetainedMB: median(entry.bareRetainedMB),
        raw: entry,
      }
    }
    results.b = b
  }

  // ---------- (c) a Vitest file of 100 tests ----------
  if (only.has('c') && side === 'both') {
    const { perTestAfterFirst, perTestSplit, runVitestScenario, WARM_UP_TESTS } = await import('./lib/vitest-file.mjs')
    const vitestRuns = await runVitestScenario(join(cacheDir, 'vitest'), { tests: VITEST_TESTS, rounds: VITEST_ROUNDS, log })
    // Each side's figure is the median of its rounds; the other figures pool the rounds' tests after the first.
    const sideOf = (sideRuns) => {
      const after = sideRuns.flatMap((run) => run.durations.slice(1))
      const perRound = sideRuns.map((run) => perTestAfterFirst(run.durations))
      const splits = sideRuns.map((run) => perTestSplit(run.durations))
      return {
        perTestAfterFirstMs: median(perRound),
        roundsPerTestAfterFirstMs: perRound,
        warmUpMs: median(splits.map((split) => split.warmUp)),
        afterWarmUpMs: median(splits.map((split) => split.afterWarmUp)),
        medianAfterFirstMs: median(after),
        p90AfterFirstMs: quantile(after, 0.9),
        firstTestMs: median(sideRuns.map((run) => run.durations[0])),
        vitestWallMs: median(sideRuns.map((run) => run.wallMs)),
        durations: sideRuns.map((run) => run.durations),
      }
    }
    results.c = { tests: VITEST_TESTS, rounds: VITEST_ROUNDS, warmUpTests: WARM_UP_TESTS, harness: sideOf(vitestRuns.harness), bare: sideOf(vitestRuns.bare) }
    log(`(c) per test after the first: harness ${results.c.harness.perTestAfterFirstMs.toFixed(2)} ms, bare ${results.c.bare.perTestAfterFirstMs.toFixed(2)} ms`)
  }

  // ---------- (g) the process depth: a `pi` process session against bare `pi --mode rpc`, the same turn ----------
  if (only.has('g') && side === 'both') {
    const { bareRpcTurn } = await import('./lib/rpc-bare.mjs')
    const { piCliOf } = await import('../dist/src/pi/line.js')
    const cli = piCliOf(PI_LINE)
    const extensionFile = fileURLToPath(new URL('./lib/standard-extension.mjs', import.meta.url))
    const processTurn = async () => {
      const t = await createTestSession({ extensions: [extensionFile], process: true })
      await t.run(standardTurn())
      await t.dispose()
      return t
    }
    // Both sides start Pi from its files: one untimed turn of each first (the OS's file cache), then the rounds.
    checkHarnessStandard(await processTurn())
    checkBareStandard(await bareRpcTurn(cli, STANDARD_PROMPT))
    const times = { harness: [], bare: [] }
    for (let round = 0; round < PROCESS_ROUNDS; round++) {
      for (const which of round % 2 === 0 ? ['harness', 'bare'] : ['bare', 'harness']) {
        const started = now()
        if (which === 'harness') await processTurn()
        else await bareRpcTurn(cli, STANDARD_PROMPT)
        times[which].push(now() - started)
      }
    }
    results.g = { rounds: PROCESS_ROUNDS, harness: { ...summary(times.harness), samples: times.harness }, bare: { ...summary(times.bare), samples: times.bare } }
    log(`(g) process session: ${times.harness.map((ms) => ms.toFixed(0)).join(', ')} ms; bare pi --mode rpc: ${times.bare.map((ms) => ms.toFixed(0)).join(', ')} ms`)
  }

  // ---------- (e) a suite of 20 files × 5 sessions: default isolation from the bundle of Pi and from Pi's own files, isolate: false ----------
  if (only.has('e') && side === 'both') {
    const { runIsolationScenario } = await import('./lib/vitest-suite.mjs')
    const { ensurePiBundle } = await import('../dist/src/pi/bundle.js')
    // The one-time cost: the bundle this Pi's runs use, removed and built again.
    const buildBundle = async () => {
      rmSync(await ensurePiBundle(PI_LINE), { recursive: true, force: true })
      const started = now()
      await ensurePiBundle(PI_LINE)
      return now() - started
    }
    const e = await runIsolationScenario(join(cacheDir, 'suite'), { ...SUITE, log, buildBundle })
    results.e = { ...e, ms: Object.fromEntries(Object.entries(e.wall).map(([name, walls]) => [name, median(walls)])) }
    log(`(e) median wall: ${Object.entries(results.e.ms).map(([name, ms]) => `${name} ${ms.toFixed(0)} ms`).join(', ')}; bundle built in ${e.buildMs.toFixed(0)} ms`)
  }
} finally {
  rmSync(bareRoot, { recursive: true, force: true })
  if (!args.has('keep')) rmSync(cacheDir, { recursive: true, force: true })
}

// ---------- the table ----------

const distChanged = distStamp() !== distAtStart
results.meta.distBuiltAt = new Date(distAtStart).toISOString()
results.meta.distChangedDuringRun = distChanged
results.meta.profiledTo = args.get('profile') ?? null

const rows = []
const row = (scenario, h, b, target, met, unit = 'ms', ratio = h / b) => rows.push({ scenario, harness: h, bare: b, ratio, target, met, unit })
const fmt = (value, unit) => (value === undefined || Number.isNaN(value) ? '–' : `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ${unit}`)

{
  const ok = (list) => list.filter((entry) => !entry.error)
  const first = (list) => median(ok(list).map((entry) => entry.firstIterationMs))
  const withImport = (list) => median(ok(list).map((entry) => entry.importMs + entry.firstIterationMs))
  const harnessFirst = results.first.harness.length > 0 ? first(results.first.harness) : firstIterationMs
  const n = Math.max(results.first.harness.length, 1)
  const bareFirst = first(results.first.bare)
  row(`(a) first iteration after Pi import (median of ${n} processes)`, harnessFirst, bareFirst, '≤ bare + 10 ms', harnessFirst <= bareFirst + 10)
  const harnessImport = results.first.harness.length > 0 ? median(ok(results.first.harness).map((entry) => entry.importMs)) : harnessImportMs
  row('(a) importing the harness after Pi / the bare lib', harnessImport, median(ok(results.first.bare).map((entry) => entry.importMs)), '≤ 50 ms', harnessImport <= 50)
  row('(a) … first iteration plus that import', results.first.harness.length > 0 ? withImport(results.first.harness) : harnessImportMs + firstIterationMs, withImport(results.first.bare), 'info', undefined)
}
if (results.a && side === 'both') {
  const ratio = results.a.harness.median / results.a.bare.median
  row('(a) median per iteration', results.a.harness.median, results.a.bare.median, 'ratio ≤ 1.10', ratio <= 1.1)
  row('(a) p90 per iteration', results.a.harness.p90, results.a.bare.p90, 'info', undefined)
  row('(a) median, temp home held (as under Vitest)', results.a.homeHeld.harness.median, results.a.homeHeld.bare.median, 'diagnostic', undefined)
  row('(a) … and the session context off (no promise hook)', results.a.contextOff.harness.median, results.a.contextOff.bare.median, 'diagnostic', undefined)
  row('(a) held: bare Pi in a session\'s isolation alone (harness column)', results.a.isolationFloor.isolatedBare.median, results.a.isolationFloor.bare.median, 'diagnostic', undefined)
  const { seeded, unseeded } = results.a.seeded
  row('(a) held: ten small files seeded / none (both columns harness)', seeded.median, unseeded.median, 'seeded ≤ none + 1 ms', seeded.median <= unseeded.median + 1)
  row('(a) … each session seeded apart (one file differs: nothing kept to take) / none', results.a.seededApart.seeded.median, results.a.seededApart.unseeded.median, 'diagnostic', undefined)
  row('(a) … the disk alone: those files written and removed by plain Node / the dirs alone', results.a.seedDisk.seeded.median, results.a.seedDisk.unseeded.median, 'diagnostic', undefined)
}
if (results.b?.[100] && results.b?.[1000] && side === 'both') {
  row('(b) per call, 100 calls', results.b[100].harnessPerCallMs, results.b[100].barePerCallMs, 'info', undefined)
  row('(b) per call, 1000 calls', results.b[1000].harnessPerCallMs, results.b[1000].barePerCallMs, 'info', undefined)
  const { roundRatio } = results.b[1000]
  row('(b) 1000 calls, median of the rounds\' ratios', undefined, undefined, 'ratio ≤ 1.10', roundRatio <= 1.1, 'ms', roundRatio)
  row('(b) heap retained, 1000 calls', results.b[1000].harnessRetainedMB, results.b[1000].bareRetainedMB, 'info', undefined, 'MB')
}
if (results.c) {
  row('(c) Vitest, per test after the first', results.c.harness.perTestAfterFirstMs, results.c.bare.perTestAfterFirstMs, '≤ bare + 1 ms', results.c.harness.perTestAfterFirstMs <= results.c.bare.perTestAfterFirstMs + 1)
  const { warmUpTests, tests } = results.c
  row(`(c) … its tests 2–${warmUpTests} (warm-up)`, results.c.harness.warmUpMs, results.c.bare.warmUpMs, 'diagnostic', undefined)
  row(`(c) … its tests ${warmUpTests + 1}–${tests}`, results.c.harness.afterWarmUpMs, results.c.bare.afterWarmUpMs, 'diagnostic', undefined)
  row('(c) Vitest, first test', results.c.harness.firstTestMs, results.c.bare.firstTestMs, 'info', undefined)
}
if (results.d) {
  const peak = (list, key) => Math.max(...list.map((entry) => entry[key]))
  const held = peak(results.d.harnessHeld, 'heldGrowthMB')
  row(`(d) runner ${LOUD_MB} MB output, peak growth held (heap + Buffers)`, held, peak(results.d.bareHeld, 'heldGrowthMB'), '≤ 48 MB', held <= 48, 'MB')
  row(`(d) runner ${LOUD_MB} MB output, peak RSS growth (no forced GC)`, peak(results.d.harness, 'rssGrowthMB'), peak(results.d.bare, 'rssGrowthMB'), 'info', undefined, 'MB')
}

if (results.e) {
  // Here the two columns are two ways of the harness: the first the default, the second what it is measured against.
  const { ms, files, sessions } = results.e
  const goal = PI_LINE.scope === '@earendil-works' ? 0.5 : 0.7
  row(`(e) ${files} files × ${sessions} sessions, default isolation, wall: pi() vs Pi's own files, a worker started for each file`, ms.default, ms.unbundled, `ratio ≤ ${goal}`, ms.default / ms.unbundled <= goal)
  row(`(e) … the bundle of Pi alone (pi({ warmWorkers: false })) vs the same`, ms.bundleOnly, ms.unbundled, 'info', undefined)
  row(`(e) … isolate: false vs default isolation (pi())`, ms.shared, ms.default, 'info', undefined)
  row(`(e) … one-time: building the bundle (a project's first run, a changed Pi)`, results.e.buildMs, undefined, 'info', undefined)
  // Where a file's time goes, per file of the run: wall / files (on 2 cores Vitest's default is one worker, files one after another).
  const perFile = (name) => ms[name] / files
  row(`(e) per file: Vitest's own (a trivial test, no environment)`, perFile('floor'), undefined, 'info', undefined)
  row(`(e) per file: + the environment's setup and Pi's import (bundle vs own files)`, perFile('emptyBundleOnly') - perFile('floor'), perFile('emptyUnbundled') - perFile('floor'), 'info', undefined)
  row(`(e) per file: … what is left of it in workers started ahead (pi())`, perFile('emptyDefault') - perFile('floor'), undefined, 'info', undefined)
  row(`(e) per file: + ${sessions} sessions (bundle vs own files)`, perFile('bundleOnly') - perFile('emptyBundleOnly'), perFile('unbundled') - perFile('emptyUnbundled'), 'info', undefined)
}

if (results.f) {
  // Harness only: bare Pi has no audit to compare with.
  row(`(f) guard audit, whole default corpus (${results.f.entries} calls), median of ${results.f.rounds}`, results.f.median, undefined, '< 2000 ms', results.f.median < 2000)
}

if (results.g) {
  const ratio = results.g.harness.median / results.g.bare.median
  row(`(g) process session vs bare pi --mode rpc: start, the standard turn, exit (median of ${results.g.rounds})`, results.g.harness.median, results.g.bare.median, 'ratio ≤ 1.20', ratio <= 1.2)
}

const header = ['scenario', 'harness', 'bare', 'ratio', 'target', 'met?']
const lines = rows.map((r) => [
  r.scenario,
  fmt(r.harness, r.unit),
  fmt(r.bare, r.unit),
  Number.isFinite(r.ratio) ? r.ratio.toFixed(2) : '–',
  r.target,
  r.met === undefined ? '' : r.met ? 'yes' : 'NO',
])
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)))
const print = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`
console.log(`\nvitest-environment-pi bench — Node ${results.meta.node}, Pi ${results.meta.piPackage}@${results.meta.pi}, ${results.meta.cpus} CPUs, commit ${results.meta.commit}${results.meta.dirtyFiles ? ` (+${results.meta.dirtyFiles} uncommitted source files)` : ''}`)
console.log(print(header))
console.log(print(widths.map((w) => '-'.repeat(w))))
for (const line of lines) console.log(print(line))
if (profiler.profiled) console.log(`(profiled into ${args.get('profile')}: the timings above include the profiler's cost; node bench/profile-summary.mjs ${args.get('profile')} sums them per side)`)
console.log(`(this process: Pi import ${piImportMs.toFixed(0)} ms, harness import after Pi ${harnessImportMs.toFixed(1)} ms, first harness iteration ${firstIterationMs.toFixed(1)} ms; other first iterations are from fresh processes)`)

if (distChanged) console.log('WARNING: dist/ was rebuilt while the bench ran; the scenarios may have measured different builds.')

results.table = rows.map((r) => ({ ...r, harness: round(r.harness), bare: round(r.bare), ratio: round(r.ratio) }))
// One results file per Pi line (the file's meta names it too), so that both lines' last full runs sit side by side.
if (side === 'both' && SCENARIOS.every((name) => only.has(name)) && !profiler.profiled) writeFileSync(join(REPO, 'bench', `results-${PI_LINE.scope.slice(1)}.json`), `${JSON.stringify(results, null, 2)}\n`)
else {
  // A scenario that makes no cache dir of its own (--only=f) finds no .cache yet.
  mkdirSync(join(REPO, '.cache'), { recursive: true })
  writeFileSync(join(REPO, '.cache', `bench-partial-${process.pid}.json`), `${JSON.stringify(results, null, 2)}\n`)
}
