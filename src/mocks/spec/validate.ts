import type { ErrorObject } from 'ajv/dist/2020.js'
import { defName, inlined, validator } from './compiled-schema.js'
import { compileSpecPattern, SpecPatternError } from './pattern.js'
import type { MockSpec } from './types.js'

export interface MockSpecProblem {
  /** RFC 6901 pointer into the spec; `''` is the document root (or the file itself). */
  pointer: string
  message: string
}

export interface ValidateMockSpecOptions {
  /** Shown at the start of every problem line; defaults to `mock spec`. */
  source?: string
  /** When given, `extension_id` must be one of these. */
  extensionIds?: readonly string[]
}

const DEFAULT_SOURCE = 'mock spec'
const HTTP_MATCH_KEYS = 'must have one of url_exact, url_prefix, url_pattern, headers, body_contains'
const EXEC_MATCH_KEYS = 'must have one of cmd_exact, cmd_prefix, cmd_pattern'
// Allowed-name lists longer than this stop helping and start burying the actual problem.
const MAX_ALLOWED_LIST_LENGTH = 100

// Past this many, more lines bury the first problems, which usually explain the rest.
const MAX_LISTED_PROBLEMS = 20

/**
 * The problems found in one mock spec, in document order: the first 20 in `problems` and one
 * `<source>: <pointer>: <message>` line each in the message, then a line counting the `omitted` rest.
 */
export class MockSpecError extends Error {
  override readonly name = 'MockSpecError'
  readonly source: string
  readonly problems: readonly MockSpecProblem[]
  /** How many problems were found beyond those in `problems`. */
  readonly omitted: number

  constructor(source: string, problems: readonly MockSpecProblem[]) {
    const listed = problems.slice(0, MAX_LISTED_PROBLEMS)
    const omitted = problems.length - listed.length
    const lines = listed.map((problem) => formatProblem(source, problem))
    if (omitted > 0) lines.push(`${source}: … and ${omitted} more problem${omitted === 1 ? '' : 's'}`)
    super(lines.join('\n'))
    this.source = source
    this.problems = listed
    this.omitted = omitted
  }
}

// The root pointer is empty, so it is left out rather than printed as a dangling ": ".
function formatProblem(source: string, { pointer, message }: MockSpecProblem): string {
  return pointer === '' ? `${source}: ${message}` : `${source}: ${pointer}: ${message}`
}

/** Returns the spec typed and unchanged (defaults not filled in), or throws one MockSpecError with every schema and cross-field problem. */
export function validateMockSpec(value: unknown, options: ValidateMockSpecOptions = {}): MockSpec {
  const validateSchema = validator()
  const problems = validateSchema(value) ? [] : schemaProblems(validateSchema.errors ?? [])
  problems.push(...semanticProblems(value, options.extensionIds))
  if (problems.length > 0) {
    throw new MockSpecError(options.source ?? DEFAULT_SOURCE, sortProblems(value, dedupe(problems)))
  }
  return value as MockSpec
}

interface Entry extends MockSpecProblem {
  keyword: string
  schemaPath: string
}

function schemaProblems(errors: readonly ErrorObject[]): MockSpecProblem[] {
  const entries: Entry[] = []
  for (const error of errors) {
    // An if/then's own error only repeats that the then-branch failed, right after that branch's errors.
    if (error.keyword === 'if') continue
    if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf') {
      entries.push(toEntry(error, describe(error)))
      continue
    }
    // Ajv reports a failed anyOf/oneOf right after its branch errors, all located at or below the same instance.
    const ownTypePath = error.schemaPath.replace(/\/(anyOf|oneOf)$/, '/type')
    let start = entries.length
    while (start > 0 && isWithin(entries[start - 1]!.pointer, error.instancePath) && entries[start - 1]!.schemaPath !== ownTypePath) start--
    for (const entry of collapseBranches(error, entries.splice(start))) entries.push(entry)
  }
  return entries.map(({ pointer, message }) => ({ pointer, message }))
}

function collapseBranches(error: ErrorObject, branches: readonly Entry[]): Entry[] {
  if (defName(error.parentSchema) === 'http_match') return [toEntry(error, HTTP_MATCH_KEYS)]
  if (defName(error.parentSchema) === 'exec_match') return [toEntry(error, EXEC_MATCH_KEYS)]
  // A branch whose type fit produced errors further down: those are the real problem, the other branches are noise.
  const deeper = branches.filter((branch) => branch.pointer !== error.instancePath)
  if (deeper.length > 0) return deeper
  const types = branches.filter((branch) => branch.keyword === 'type').map((branch) => branch.message.replace(/^must be /, ''))
  if (types.length > 0) return [toEntry(error, `must be ${types.join(' or ')}`)]
  return [toEntry(error, error.message ?? 'is invalid')]
}

function toEntry(error: ErrorObject, message: string): Entry {
  return { pointer: error.instancePath, message, keyword: error.keyword, schemaPath: error.schemaPath }
}

function isWithin(pointer: string, ancestor: string): boolean {
  return pointer === ancestor || pointer.startsWith(`${ancestor}/`)
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return `missing required property "${String(params.missingProperty)}"`
    case 'additionalProperties':
      return unknownProperty(String(params.additionalProperty), error.parentSchema)
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
    case 'type':
      return `must be ${Array.isArray(params.type) ? params.type.join(' or ') : String(params.type)}`
    default:
      return error.message ?? 'is invalid'
  }
}

function unknownProperty(name: string, parentSchema: ErrorObject['parentSchema']): string {
  const properties: unknown = parentSchema?.properties
  const allowed = isObject(properties) ? Object.keys(properties).join(', ') : ''
  if (allowed === '' || allowed.length > MAX_ALLOWED_LIST_LENGTH) return `unknown property "${name}"`
  return `unknown property "${name}" (allowed: ${allowed})`
}

function semanticProblems(value: unknown, extensionIds: readonly string[] | undefined): MockSpecProblem[] {
  const problems: MockSpecProblem[] = []
  if (!isObject(value)) return problems
  const id = value.extension_id
  if (extensionIds !== undefined && typeof id === 'string' && !extensionIds.includes(id)) {
    const expected = extensionIds.length > 0 ? extensionIds.join(', ') : 'none loaded'
    problems.push({ pointer: '/extension_id', message: `"${id}" does not match the extension under test (${expected})` })
  }
  if (isObject(value.http)) {
    listOf(value.http.rules).forEach((rule, index) => {
      if (!isObject(rule)) return
      const at = `/http/rules/${index}`
      if (isObject(rule.match)) checkPattern(rule.match.url_pattern, `${at}/match/url_pattern`, problems)
      checkBody(rule.response, `${at}/response`, problems)
    })
    checkBody(value.http.default_response, '/http/default_response', problems)
  }
  if (isObject(value.exec)) {
    listOf(value.exec.rules).forEach((rule, index) => {
      if (isObject(rule) && isObject(rule.match)) {
        checkPattern(rule.match.cmd_pattern, `/exec/rules/${index}/match/cmd_pattern`, problems)
      }
    })
  }
  if (isObject(value.model)) {
    listOf(value.model.without_credentials).forEach((provider, index) => {
      if (typeof provider === 'string' && provider.includes('/')) {
        const name = provider.slice(0, provider.indexOf('/'))
        problems.push({ pointer: `/model/without_credentials/${index}`, message: `names a model; Pi keeps credentials per provider: write "${name}"` })
      }
    })
  }
  return problems
}

// Patterns are compiled as the mocks compile them: RE2 syntax, without flags.
function checkPattern(pattern: unknown, pointer: string, problems: MockSpecProblem[]): void {
  if (typeof pattern !== 'string') return
  try {
    compileSpecPattern(pattern)
  } catch (error) {
    if (!(error instanceof SpecPatternError)) throw error
    problems.push({ pointer, message: error.problem })
  }
}

function checkBody(response: unknown, pointer: string, problems: MockSpecProblem[]): void {
  if (isObject(response) && response.body !== undefined && response.body_json !== undefined) {
    problems.push({ pointer, message: 'must not have both body and body_json' })
  }
}

function dedupe(problems: readonly MockSpecProblem[]): MockSpecProblem[] {
  const seen = new Set<string>()
  return problems.filter(({ pointer, message }) => {
    const key = `${pointer}\0${message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

// Problems follow the order of the document itself; the sort is stable, so problems at one spot keep schema order.
function sortProblems(value: unknown, problems: readonly MockSpecProblem[]): MockSpecProblem[] {
  const keyIndexes = new WeakMap<object, Map<string, number>>()
  const ranked = problems.map((problem) => ({ problem, rank: documentPosition(value, problem.pointer, keyIndexes) }))
  ranked.sort((a, b) => compareRanks(a.rank, b.rank))
  return ranked.map(({ problem }) => problem)
}

// A pointer's position as the index of each segment among its parent's keys (or array items), in document
// order. Each object's keys are indexed once, so ranking every problem stays linear in the spec's size.
function documentPosition(value: unknown, pointer: string, keyIndexes: WeakMap<object, Map<string, number>>): number[] {
  const rank: number[] = []
  let current = value
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    const index = Array.isArray(current) ? arrayIndex(current, segment) : isObject(current) ? keyIndex(current, segment, keyIndexes) : -1
    rank.push(index === -1 ? Number.MAX_SAFE_INTEGER : index)
    current = index === -1 ? undefined : (current as Record<string, unknown>)[segment]
  }
  return rank
}

function arrayIndex(array: readonly unknown[], segment: string): number {
  const index = /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : -1
  return index < array.length ? index : -1
}

function keyIndex(object: Record<string, unknown>, key: string, keyIndexes: WeakMap<object, Map<string, number>>): number {
  let indexes = keyIndexes.get(object)
  if (!indexes) keyIndexes.set(object, (indexes = new Map(Object.keys(object).map((name, index) => [name, index]))))
  return indexes.get(key) ?? -1
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!
  }
  return a.length - b.length
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}
