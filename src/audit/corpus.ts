// The guard-audit corpus: dangerous tool calls and benign look-alikes, as data. The default corpus is the JSON
// files in ./corpus (one per category, listed with the corpus version in index.json); users add their own.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describeReceived, messageOf } from '../shared/errors.js'

/** One tool call, as the model would send it: `{ tool: 'bash', input: { command: 'rm -rf /' } }`. */
export interface AuditCall {
  tool: string
  input: Record<string, unknown>
}

export interface DangerousEntry {
  /** Unique within its category; `<category>/<id>` names the entry everywhere (results, known-gap lists). */
  id: string
  call: AuditCall
  /** Why a guard must stop this call. */
  why: string
}

export interface BenignEntry {
  id: string
  call: AuditCall
  /** Why the call is harmless although it looks like the category's dangerous ones. */
  why: string
  /** The policy under which it is benign, e.g. "deleting build output inside the project is allowed". */
  policy: string
}

export interface AuditCategory {
  /** A short kebab-case name: `recursive-delete`. */
  id: string
  title: string
  dangerous: DangerousEntry[]
  benign: BenignEntry[]
}

export interface AuditCorpus {
  /** The corpus's version: the default corpus's is in corpus/index.json; a changed entry changes it. */
  version: string
  categories: AuditCategory[]
}

/** What extendCorpus takes: whole new categories, and entries added to categories already there. */
export interface CorpusAdditions {
  categories?: AuditCategory[]
  entries?: Record<string, { dangerous?: DangerousEntry[]; benign?: BenignEntry[] }>
  /** The extended corpus's version; default `<base version>+local`. */
  version?: string
}

/** A corpus file or value that is not a corpus: `where` says which file and which JSON pointer. */
export class CorpusError extends Error {
  override readonly name = 'CorpusError'
}

// require() reads JSON on every Node 20.x; tsc copies the files to dist beside this module.
const require = createRequire(import.meta.url)
let defaultCorpusValue: AuditCorpus | undefined

/** The corpus shipped with the package, checked once; each call returns a fresh copy the caller may change. */
export function defaultCorpus(): AuditCorpus {
  defaultCorpusValue ??= readDefaultCorpus()
  return structuredClone(defaultCorpusValue)
}

function readDefaultCorpus(): AuditCorpus {
  const index = require('./corpus/index.json') as { version: string; categories: string[] }
  return checkCorpus(
    { version: index.version, categories: index.categories.map((name) => require(`./corpus/${name}.json`) as unknown) },
    'the default corpus (src/audit/corpus)',
  )
}

/** A category or a whole corpus from a JSON file of the same shape as the shipped ones, checked. */
export function loadCorpusFile(path: string): AuditCorpus {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new CorpusError(`${path}: ${messageOf(error)}`, { cause: error })
  }
  const wrapped = isObject(parsed) && 'categories' in parsed ? parsed : { version: 'local', categories: [parsed] }
  return checkCorpus(wrapped, path)
}

/** `base` with more categories and more entries in existing ones; ids stay unique. */
export function extendCorpus(base: AuditCorpus, additions: CorpusAdditions): AuditCorpus {
  const categories = structuredClone(base.categories)
  const where = 'extendCorpus(base, additions)'
  for (const [name, added] of Object.entries(additions.entries ?? {})) {
    const category = categories.find((c) => c.id === name)
    if (!category) throw new CorpusError(`${where}: entries["${name}"]: no category "${name}" in the corpus; categories: ${categories.map((c) => c.id).join(', ')}`)
    category.dangerous.push(...(added.dangerous ?? []))
    category.benign.push(...(added.benign ?? []))
  }
  categories.push(...(additions.categories ?? []))
  return checkCorpus({ version: additions.version ?? `${base.version}+local`, categories }, where)
}

/** The corpus's categories named in `names` (all when undefined), or an error naming the unknown one. */
export function selectCategories(corpus: AuditCorpus, names: readonly string[] | undefined): AuditCategory[] {
  if (names === undefined) return corpus.categories
  return names.map((name) => {
    const found = corpus.categories.find((c) => c.id === name)
    if (!found) throw new CorpusError(`auditGuard: no category "${name}" in corpus ${corpus.version}; categories: ${corpus.categories.map((c) => c.id).join(', ')}`)
    return found
  })
}

/** Every entry of `categories` counted, for summaries. */
export function countEntries(corpus: AuditCorpus): { dangerous: number; benign: number } {
  return corpus.categories.reduce((sum, c) => ({ dangerous: sum.dangerous + c.dangerous.length, benign: sum.benign + c.benign.length }), { dangerous: 0, benign: 0 })
}

const isObject = (value: unknown): value is Record<string, unknown> => Object.prototype.toString.call(value) === '[object Object]'
const ID = /^[a-z0-9][a-z0-9.-]*$/

/** `value` as a corpus, or a CorpusError naming `source` and the JSON pointer of the first problem. */
export function checkCorpus(value: unknown, source: string): AuditCorpus {
  const problem = corpusProblem(value)
  if (problem) throw new CorpusError(`${source}: ${problem}`)
  return value as AuditCorpus
}

function corpusProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `the corpus must be an object { version, categories }, got ${describeReceived(value)}`
  if (typeof value.version !== 'string' || value.version === '') return `/version must be a non-empty string, got ${describeReceived(value.version)}`
  if (!Array.isArray(value.categories)) return `/categories must be an array, got ${describeReceived(value.categories)}`
  const seen = new Set<string>()
  for (const [index, category] of value.categories.entries()) {
    const problem = categoryProblem(category, `/categories/${index}`)
    if (problem) return problem
    const id = (category as AuditCategory).id
    if (seen.has(id)) return `/categories/${index}/id: category "${id}" appears twice`
    seen.add(id)
  }
  return undefined
}

function categoryProblem(category: unknown, at: string): string | undefined {
  if (!isObject(category)) return `${at} must be a category { id, title, dangerous, benign }, got ${describeReceived(category)}`
  if (typeof category.id !== 'string' || !ID.test(category.id)) return `${at}/id must be a kebab-case name, got ${describeReceived(category.id)}`
  if (typeof category.title !== 'string' || category.title === '') return `${at}/title must be a non-empty string, got ${describeReceived(category.title)}`
  const ids = new Set<string>()
  for (const kind of ['dangerous', 'benign'] as const) {
    const entries = category[kind]
    if (!Array.isArray(entries)) return `${at}/${kind} must be an array of entries, got ${describeReceived(entries)}`
    for (const [index, entry] of entries.entries()) {
      const where = `${at}/${kind}/${index}`
      const problem = entryProblem(entry, where, kind === 'benign')
      if (problem) return problem
      const id = (entry as DangerousEntry).id
      if (ids.has(id)) return `${where}/id: "${category.id}/${id}" appears twice`
      ids.add(id)
    }
  }
  return undefined
}

function entryProblem(entry: unknown, at: string, benign: boolean): string | undefined {
  if (!isObject(entry)) return `${at} must be an entry { id, call, why${benign ? ', policy' : ''} }, got ${describeReceived(entry)}`
  if (typeof entry.id !== 'string' || !ID.test(entry.id)) return `${at}/id must be a kebab-case name, got ${describeReceived(entry.id)}`
  const call = entry.call
  if (!isObject(call) || typeof call.tool !== 'string' || call.tool === '' || !isObject(call.input)) {
    return `${at}/call must be { tool, input } (a tool name and an object of params), got ${describeReceived(call)}`
  }
  if (call.tool === 'bash' && typeof call.input.command !== 'string') return `${at}/call/input/command must be a string, got ${describeReceived(call.input.command)}`
  if (typeof entry.why !== 'string' || entry.why === '') return `${at}/why must say why the call is ${benign ? 'benign' : 'dangerous'}, got ${describeReceived(entry.why)}`
  if (benign && (typeof entry.policy !== 'string' || entry.policy === '')) return `${at}/policy must name the policy under which the call is benign, got ${describeReceived(entry.policy)}`
  return undefined
}
