// How long replay() takes to read a long session file: the promise is under 2 s for 167,000 entries.
// `npm run build && node bench/replay.mjs [--entries=167000] [--rounds=5]`. It writes a session file as Pi
// writes one (version 3, entries chained by parentId; each turn a prompt, a tool call, its result and an
// answer), times replay() on it in this process, round after round, and prints the median, the spread, the
// machine's load average and the Node and Pi line. It reports and never asserts, like bench.mjs.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { PI_LINE } from './lib/pi-line.mjs'
import { median } from './lib/stats.mjs'

const { values } = parseArgs({ options: { entries: { type: 'string', default: '167000' }, rounds: { type: 'string', default: '5' } } })
const ENTRIES = Number(values.entries)
const ROUNDS = Number(values.rounds)
if (!(ENTRIES >= 5) || !(ROUNDS >= 1)) throw new Error('--entries must be 5 or more and --rounds 1 or more')

const { replay } = await import('vitest-environment-pi/core')

function writeSessionFile(path, entries) {
  const timestamp = '2026-01-01T00:00:00.000Z'
  const lines = [JSON.stringify({ type: 'session', version: 3, id: 'bench', timestamp, cwd: '/repo' })]
  let parentId = null
  const add = (message) => {
    const id = `e${lines.length}`
    lines.push(JSON.stringify({ type: 'message', id, parentId, timestamp, message }))
    parentId = id
  }
  for (let turn = 0; lines.length <= entries - 4; turn++) {
    const call = `call-${turn}`
    add({ role: 'user', content: [{ type: 'text', text: `Read notes-${turn}.md and sum it up.` }] })
    add({ role: 'assistant', content: [{ type: 'toolCall', id: call, name: 'read', arguments: { path: `notes-${turn}.md` } }], stopReason: 'toolUse' })
    add({ role: 'toolResult', toolCallId: call, toolName: 'read', content: [{ type: 'text', text: `# Notes ${turn}\n\nShip on Friday.` }], isError: false })
    add({ role: 'assistant', content: [{ type: 'text', text: `Notes ${turn}: ship on Friday.` }], stopReason: 'stop' })
  }
  writeFileSync(path, `${lines.join('\n')}\n`)
  return lines.length - 1
}

const dir = mkdtempSync(join(tmpdir(), 'pi-bench-replay-'))
try {
  const file = join(dir, 'session.jsonl')
  const written = writeSessionFile(file, ENTRIES)
  const samples = []
  // CPU time too: on a loaded machine the wall clock counts the other processes' turns.
  const cpu = []
  let turns = 0
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now()
    const cpuStarted = process.cpuUsage()
    turns = replay(file).turns.length
    const used = process.cpuUsage(cpuStarted)
    samples.push(performance.now() - started)
    cpu.push((used.user + used.system) / 1000)
  }
  const [low, high] = [Math.min(...samples), Math.max(...samples)]
  console.log(`replay() of ${written} entries (${turns} turns, ${(statSync(file).size / 1e6).toFixed(1)} MB), ${ROUNDS} rounds`)
  console.log(`  median ${median(samples).toFixed(0)} ms, spread ${low.toFixed(0)}–${high.toFixed(0)} ms (goal: under 2000 ms)`)
  console.log(`  samples: ${samples.map((ms) => ms.toFixed(0)).join(', ')} ms; CPU time (user + system): median ${median(cpu).toFixed(0)} ms`)
  console.log(`  Node ${process.version}, ${PI_LINE.scope}/pi-coding-agent, load average ${loadavg().map((load) => load.toFixed(2)).join(' ')} on ${availableParallelism()} cores`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
