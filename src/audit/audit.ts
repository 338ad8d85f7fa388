// auditGuard: every entry of the corpus goes through Pi's real tool-call path in ordinary test sessions (the
// model calls the tool, the guard's handlers decide, dialogs answer as scripted, tools are mocks that run
// nothing), and each call's outcome is read from the session's records.
import { isDeepStrictEqual } from 'node:util'
import { calls, parallel, says, when } from '../model/script.js'
import type { ExtensionFactory } from '../pi/types.js'
import type { UICallRecord } from '../records/records.js'
import { createTestSession, type TestSession, type TestSessionOptions } from '../session/create.js'
import { describeReceived, messageOf } from '../shared/errors.js'
import { defaultCorpus, selectCategories, type AuditCall, type AuditCategory, type AuditCorpus } from './corpus.js'
import { callText, isOk, summarise, type AuditDialog, type AuditedEntry, type AuditOutcome, type AuditResult } from './result.js'

export interface AuditGuardOptions
  extends Pick<TestSessionOptions, 'extensions' | 'mockUI' | 'flags' | 'mocks' | 'mockSpec' | 'root' | 'cwd' | 'importModule' | 'unhandled' | 'extensionLoadTimeout'> {
  /** The categories to run (ids); all of the corpus's when left out. */
  categories?: string[]
  /** The corpus; the one shipped with the package when left out (`extendCorpus(defaultCorpus(), …)` adds to it). */
  corpus?: AuditCorpus
  /**
   * The guard keeps state between calls (it counts, remembers an earlier answer): each call then runs in a
   * session of its own, so no call's outcome depends on the ones before it. Default false: one session per
   * category, each call a step of one turn.
   */
  stateful?: boolean
}

/** How the audit makes its sessions: the environment's createTestSession under Vitest, with the file's defaults. */
export type SessionFactory = (options: TestSessionOptions) => Promise<TestSession>

/** One entry to run, with where it came from. */
interface Planned {
  id: string
  category: string
  kind: AuditedEntry['kind']
  call: AuditCall
}

// Every tool of the corpus answers this; nothing runs.
const NOT_RUN = 'audit: the call reached the tool (mocked: nothing ran)'
const DIALOGS = new Set(['confirm', 'select', 'input', 'editor', 'custom'])
const AUDIT_OPTIONS = new Set(['extensions', 'mockUI', 'flags', 'mocks', 'mockSpec', 'root', 'cwd', 'importModule', 'unhandled', 'extensionLoadTimeout', 'categories', 'corpus', 'stateful'])

/**
 * Runs the corpus (or `categories` of it) against the guard in `extensions` and returns what happened to each
 * call. It throws only when a session cannot run (a load error, an unscripted exec, a dialog queue run out),
 * naming the entry that was running; a guard's crash is an outcome, not a throw.
 */
export async function auditGuard(options: AuditGuardOptions, createSession: SessionFactory = createTestSession): Promise<AuditResult> {
  checkAuditOptions(options)
  const { categories: names, corpus = defaultCorpus(), stateful = false, ...sessionOptions } = options
  const categories = selectCategories(corpus, names)
  const groups = categories.flatMap((category) => {
    const planned = plan(category)
    return (stateful ? planned.map((entry) => [entry]) : [planned]).map((entries) => ({ entries, category }))
  })
  const audited = await inPool(groups, SESSIONS_AT_ONCE, ({ entries, category }) => runGroup(entries, { ...sessionOptions, createSession }, category))
  return summarise(corpus.version, stateful ? 'per-entry' : 'per-category', categories, audited.flat())
}

// Sessions run side by side: one waits on its dialogs and disposal while another runs (a third faster on two
// cores than one after the other); bounded, as a stateful audit makes a session per call.
const SESSIONS_AT_ONCE = 4

/** `work` on each item, at most `limit` at a time, results in the items' order; the first failure after all settle. */
async function inPool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  const failures: unknown[] = []
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      try {
        results[index] = await work(items[index]!)
      } catch (error) {
        failures.push(error)
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  if (failures.length > 0) throw failures[0]
  return results
}

function checkAuditOptions(options: unknown): asserts options is AuditGuardOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError(`auditGuard(options): options must be an object, got ${describeReceived(options)}`)
  const unknown = Object.keys(options).find((key) => !AUDIT_OPTIONS.has(key))
  if (unknown !== undefined) throw new TypeError(`auditGuard(options): unknown option "${unknown}"; the options are ${[...AUDIT_OPTIONS].sort().join(', ')}`)
  const { extensions, categories } = options as AuditGuardOptions
  if (!Array.isArray(extensions) || extensions.length === 0) {
    throw new TypeError(`auditGuard(options): option "extensions" must name the guard (a non-empty array of paths or factories), got ${describeReceived(extensions)}`)
  }
  if (categories !== undefined && (!Array.isArray(categories) || categories.some((c) => typeof c !== 'string'))) {
    throw new TypeError(`auditGuard(options): option "categories" must be an array of category ids, got ${describeReceived(categories)}`)
  }
}

function plan(category: AuditCategory): Planned[] {
  const of = (kind: Planned['kind']) => (entry: { id: string; call: AuditCall }) => ({ id: `${category.id}/${entry.id}`, category: category.id, kind, call: entry.call })
  return [...category.dangerous.map(of('dangerous')), ...category.benign.map(of('benign'))]
}

/**
 * Runs the entries as the tool calls of one model message in one session, and reads each call's outcome. Pi
 * decides on the calls of a message one after the other (its `tool_call` handlers run in turn even where the
 * tools then run in parallel), so one message costs one model request instead of one per call.
 */
async function runGroup(
  entries: Planned[],
  { createSession, extensions = [], ...sessionOptions }: Omit<AuditGuardOptions, 'categories' | 'corpus' | 'stateful'> & { createSession: SessionFactory },
  category: AuditCategory,
): Promise<AuditedEntry[]> {
  const ranWith = new Map<string, Record<string, unknown>>()
  const mock = (params: Record<string, unknown>, call: { toolCallId: string }) => {
    ranWith.set(call.toolCallId, params)
    return NOT_RUN
  }
  const tools = [...new Set(entries.map((entry) => entry.call.tool))]
  let t: TestSession | undefined
  // Where the session's dialogs and crashes stood as each call came to the guard: what lies between two
  // marks belongs to the call of the first. The marking handler is loaded first, so it runs before the guard's.
  const marks: Mark[] = []
  const mark: ExtensionFactory = (pi) => {
    pi.on('tool_call', (event) => {
      marks.push({ toolCallId: event.toolCallId, ui: t?.events.ui.length ?? 0, errors: t?.events.extensionErrors.length ?? 0 })
    })
  }
  try {
    t = await createSession({
      ...sessionOptions,
      extensions: [mark, ...extensions],
      // A crash must become an outcome, not end the run.
      propagateErrors: false,
      // Pi decides on a message's calls in turn either way; the mocks then run in turn too, instead of all at once.
      toolExecution: 'sequential',
      mockTools: Object.fromEntries(tools.map((tool) => [tool, mock])),
      ...(tools.every((tool) => PI_DEFAULT_TOOLS.includes(tool)) ? {} : { tools: [...new Set([...PI_DEFAULT_TOOLS, ...tools])] }),
    })
    await t.run(when(`Audit: ${category.title}`, [parallel(...entries.map((entry) => calls(entry.call.tool, entry.call.input))), says('Audit done.')]))
    marks.push({ toolCallId: '', ui: t.events.ui.length, errors: t.events.extensionErrors.length })
    const session = t
    return entries.map((entry, index) => readOutcome(entry, session, marks, index, ranWith))
  } catch (error) {
    throw new Error(`auditGuard: the session for category "${category.id}" failed ${progress(entries, marks)}: ${messageOf(error)}`, { cause: error })
  } finally {
    await t?.dispose()
  }
}

/** How far the session got: how many calls reached the guard, and which came last. */
function progress(entries: Planned[], marks: Mark[]): string {
  const last = entries[marks.length - 1]
  if (!last) return `before any of its ${entries.length} call(s) reached the guard`
  return `after ${marks.length} of its ${entries.length} call(s) reached the guard (the last: ${last.id}, ${last.call.tool}: ${callText(last.call)})`
}

interface Mark {
  toolCallId: string
  ui: number
  errors: number
}

const PI_DEFAULT_TOOLS = ['read', 'bash', 'edit', 'write']

function readOutcome(entry: Planned, t: TestSession, marks: Mark[], index: number, ranWith: Map<string, Record<string, unknown>>): AuditedEntry {
  const mark = marks[index]
  const call = t.events.toolCalls.find((record) => record.toolCallId === mark?.toolCallId)
  if (!mark || !call) throw new Error(`auditGuard: no record of the call for entry ${entry.id}: Pi did not run it`)
  const next = marks[index + 1]!
  const dialogs = t.events.ui.slice(mark.ui, next.ui).filter((ui) => DIALOGS.has(ui.method)).map(dialogOf)
  const crash = t.events.extensionErrors.slice(mark.errors, next.errors).find((error) => error.event === 'tool_call')
  const outcome: AuditOutcome = call.blockedByError ? 'crashed' : call.blocked ? (dialogs.length > 0 ? 'asked-and-refused' : 'blocked') : 'allowed'
  const ran = ranWith.get(call.toolCallId)
  return {
    ...entry,
    outcome,
    ok: isOk(entry.kind, outcome),
    ...(call.blocked && !call.blockedByError && call.blockReason !== undefined ? { reason: call.blockReason } : {}),
    ...(outcome === 'crashed' ? { error: crash?.error ?? call.blockReason ?? '(no message)' } : {}),
    ...(dialogs.length > 0 ? { dialogs } : {}),
    ...(ran && !isDeepStrictEqual(ran, entry.call.input) ? { ranWith: ran } : {}),
  }
}

const dialogOf = (ui: UICallRecord): AuditDialog => ({ method: ui.method, title: ui.args[0], answer: ui.returnValue })

