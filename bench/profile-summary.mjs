// Summarises V8 CPU profiles (node --cpu-prof): self time per function and per file, and, given a
// second profile of the floor, the difference (where the first spends the extra time).
//   node bench/profile-summary.mjs harness.cpuprofile [bare.cpuprofile] [--top=25] [--inclusive=dist/src]
//   node bench/profile-summary.mjs DIR [--scenario=a|a-held|a-floor|a-off|b100|b1000] [...]
// DIR is what `bench.mjs --profile=DIR` wrote, one file per timed stretch: the harness's stretches of the
// scenario are summed as the first profile and bare Pi's as the second.
// --inclusive=<substring>: also lists inclusive (total) time of functions whose file contains it
//   (for async functions only the synchronous stretches, as V8 samples them).
// --callers=<function>: where the self time of that function comes from (its 4 nearest callers).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

const argv = process.argv.slice(2)
const files = argv.filter((arg) => !arg.startsWith('--'))
const option = (name, fallback) => argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? fallback
const TOP = Number(option('top', 25))
const inclusiveFilter = option('inclusive', undefined)
const callersOf = option('callers', undefined)

const shortUrl = (url) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^\/work\/main\//, '')

/** One profile, or the sum of several (the stretches one side was timed in). */
function load(paths) {
  const sum = { total: 0, self: new Map(), perFile: new Map(), inclusive: new Map(), callers: new Map() }
  for (const path of paths) {
    const one = loadOne(path)
    sum.total += one.total
    for (const key of ['self', 'perFile', 'inclusive', 'callers']) for (const [name, ms] of one[key]) sum[key].set(name, (sum[key].get(name) ?? 0) + ms)
  }
  return sum
}

function loadOne(path) {
  const profile = JSON.parse(readFileSync(path, 'utf8'))
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const key = (node) => {
    const { functionName, url, lineNumber } = node.callFrame
    return `${functionName || '(anonymous)'}  ${url ? `${shortUrl(url)}:${lineNumber + 1}` : '(native)'}`
  }
  const fileOf = (node) => (node.callFrame.url ? shortUrl(node.callFrame.url) : node.callFrame.functionName)
  const self = new Map()
  const perFile = new Map()
  const inclusive = new Map()
  const callers = new Map()
  let total = 0
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000
    const node = byId.get(id)
    total += ms
    self.set(key(node), (self.get(key(node)) ?? 0) + ms)
    perFile.set(fileOf(node), (perFile.get(fileOf(node)) ?? 0) + ms)
    if (callersOf && node.callFrame.functionName === callersOf) {
      const chain = []
      for (let at = parent.get(id); at !== undefined && chain.length < 4; at = parent.get(at)) chain.push(key(byId.get(at)))
      const k = chain.join('  <  ')
      callers.set(k, (callers.get(k) ?? 0) + ms)
    }
    if (inclusiveFilter) {
      const seen = new Set()
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const frame = byId.get(at)
        if (!(frame.callFrame.url ?? '').includes(inclusiveFilter)) continue
        const k = key(frame)
        if (seen.has(k)) continue
        seen.add(k)
        inclusive.set(k, (inclusive.get(k) ?? 0) + ms)
      }
    }
  })
  return { total, self, perFile, inclusive, callers }
}

const table = (title, entries, total) => {
  console.log(`\n${title}`)
  for (const [name, ms] of entries.slice(0, TOP)) console.log(`${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${name}`)
}
const sorted = (map) => [...map.entries()].sort((a, b) => b[1] - a[1])

/** The files to sum for each of the two profiles, and how to name them. */
function inputs() {
  if (files.length !== 1 || !statSync(files[0], { throwIfNoEntry: false })?.isDirectory()) return files.map((file) => ({ name: file, paths: [file] }))
  const dir = files[0]
  const stretches = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))
  const scenarios = [...new Set(stretches.map((name) => name.replace(/-(harness|bare)-\d+\.cpuprofile$/, '')))]
  const scenario = option('scenario', scenarios.length === 1 ? scenarios[0] : undefined)
  if (scenario === undefined || !scenarios.includes(scenario)) {
    console.error(`profile-summary: ${dir} holds ${scenarios.length === 0 ? 'no bench profiles' : `the scenarios ${scenarios.join(', ')}`}; pick one with --scenario=`)
    process.exit(2)
  }
  return ['harness', 'bare'].map((side) => {
    const paths = stretches.filter((name) => name.startsWith(`${scenario}-${side}-`)).map((name) => join(dir, name))
    return { name: `${scenario}, ${side} (${paths.length} timed stretches)`, paths }
  }).filter((input) => input.paths.length > 0)
}

const named = inputs()
const [first, second] = named.map((input) => load(input.paths))
if (!first) {
  console.error('usage: node bench/profile-summary.mjs a.cpuprofile [floor.cpuprofile] [--top=N] [--inclusive=substring]\n       node bench/profile-summary.mjs DIR [--scenario=NAME] (what bench.mjs --profile=DIR wrote)')
  process.exit(2)
}
console.log(`${named[0].name}: ${first.total.toFixed(0)} ms sampled`)
table('self time by function', sorted(first.self), first.total)
table('self time by file', sorted(first.perFile), first.total)
if (inclusiveFilter) table(`inclusive time, functions in files matching "${inclusiveFilter}"`, sorted(first.inclusive), first.total)
if (callersOf) table(`callers of ${callersOf} (nearest first)`, sorted(first.callers), first.total)
if (second) {
  console.log(`\n${named[1].name}: ${second.total.toFixed(0)} ms sampled; difference ${(first.total - second.total).toFixed(0)} ms`)
  const diff = (a, b) => {
    const names = new Set([...a.keys(), ...b.keys()])
    return [...names].map((name) => [name, (a.get(name) ?? 0) - (b.get(name) ?? 0)]).sort((x, y) => y[1] - x[1])
  }
  table('extra self time by function (first minus second)', diff(first.self, second.self), first.total)
  table('extra self time by file (first minus second)', diff(first.perFile, second.perFile), first.total)
}
