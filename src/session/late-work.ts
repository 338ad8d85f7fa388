// Code of a session that still runs after the session ended (a timer, a model call, a dialog): reported
// once, naming the session, its test and the extension, to whoever still listens: the session's problems
// while its test can still fail, else the file's list, which the file's end throws. Never left to surface
// as Pi's "ctx is stale" error, an unhandled error that Vitest blames on whichever test runs then.
// caller.js, not the index: the setup file imports this module, and a file that makes no session need not load Pi.
import { extensionOnStack } from '../pi/caller.js'
import { asError, messageOf } from '../shared/errors.js'
import { processSlot } from '../shared/global-slot.js'
import type { SessionScope } from '../shared/session-context.js'
import type { Problems } from './problems.js'

interface LateWatch {
  /** `session 1 of test "x" (extensions: ./a.ts)`: who the session is, in every message. */
  name: string
  problems: Problems
  /** The session's extensions, to name the one on a stack. */
  extensionPaths: () => readonly string[]
  /** Whether a test still checks `problems` after the session ended; when not, late work goes to the file. */
  watched: boolean
  /** The late work reported, once. */
  late?: Error
  /** Refusals reported while the session was still unnamed (its extensions' session_start): named once it is. */
  unnamed?: Error[]
}

const watches = processSlot('late-work', () => new WeakMap<object, LateWatch>())
const fileProblems = processSlot('late-work-file', () => [] as Error[])

/** A session's name until the environment names it after its test. */
const UNNAMED = 'a test session'

/** Starts watching `scope`'s session for work after its end, and for work of an instance after it was replaced. */
export function watchLateWork(
  scope: SessionScope,
  watch: { problems: Problems; extensionPaths: () => readonly string[]; instances: () => readonly { instance: number; name: string }[] },
): void {
  const { instances, ...rest } = watch
  watches.get().set(scope, { ...rest, name: UNNAMED, watched: false })
  scope.instanceNow = () => instances().length
  scope.replaced = (what, bornIn, error, stack) => reportReplacedWork(scope, instances(), { what, bornIn, error, stack })
}

/**
 * Reports that `what` of instance `bornIn` ran after a later instance replaced it (a timer that threw, a model
 * call, a dialog): Pi refuses a replaced instance's pi and ctx ("ctx is stale"). The session's test fails with
 * it, naming the instance.
 */
function reportReplacedWork(
  scope: SessionScope,
  instances: readonly { instance: number; name: string }[],
  { what, bornIn, error, stack }: { what: string; bornIn: number; error?: unknown; stack?: string | undefined },
): Error {
  const state = watches.get().get(scope)
  const where = stack ?? (error instanceof Error ? error.stack : undefined)
  const extension = state && extensionOnStack(where, state.extensionPaths())
  const describe = (n: number) => `instance ${n} (${instances[n - 1]?.name ?? '?'})`
  const replacedBy = instances[bornIn]?.name ?? 'a later instance'
  const outcome = error === undefined ? '' : `, and threw: ${messageOf(error)}`
  const replaced = new Error(
    `${what}${extension === undefined ? '' : ` of ${extension}`} started by ${describe(bornIn)} of ${sessionName(scope)} ran after ${replacedBy} replaced that instance${outcome}. ` +
      'Pi sends session_shutdown to the old instance on /new, /resume, /fork and /reload: stop its timers there.',
    error === undefined ? undefined : { cause: asError(error) },
  )
  state?.problems.report(replaced)
  return replaced
}

/** `t` is the handle of `scope`'s session: nameSession and closeLateWork find it by the handle. */
export function linkLateWork(t: object, scope: SessionScope): void {
  const state = watches.get().get(scope)
  if (state !== undefined) watches.get().set(t, state)
}

/**
 * Names the session `t` in messages about its late work, and says whether a test checks its problems
 * after it ends (until closeLateWork), rather than the file.
 */
export function nameSession(t: object, name: string, watched: boolean): void {
  const state = watches.get().get(t)
  if (state === undefined) return
  for (const refusal of state.unnamed?.splice(0) ?? []) refusal.message = refusal.message.replace(` in ${state.name}.`, ` in ${name}.`)
  state.name = name
  state.watched = watched
}

/** How messages name `scope`'s session: `session 1 of test "x" (extensions: ./a.ts)`. */
export function sessionName(scope: SessionScope): string {
  return watches.get().get(scope)?.name ?? UNNAMED
}

/**
 * The session's test no longer checks it: work of it that still runs is the file's to report. Returns the
 * late work reported to the test that its checks have not thrown yet (it ran while the session was ending).
 */
export function closeLateWork(t: object): Error | undefined {
  const state = watches.get().get(t)
  if (state === undefined) return undefined
  state.watched = false
  return state.late !== undefined && state.problems.withdraw(state.late) ? state.late : undefined
}

/** Marks the session ended; returns the message Pi throws, instead of its "ctx is stale", when its code still uses pi or ctx. */
export function endLateWork(scope: SessionScope): string {
  const state = watches.get().get(scope)
  scope.ended = (what, error, stack) => reportLateWork(scope, what, error, stack)
  return `${state?.name ?? 'The test session'} has ended: an extension still used its pi or ctx. Stop timers and other work in a session_shutdown handler, or await it before the test ends`
}

/**
 * Reports that `what` (`a timer`, `a model call to p/m`, `dialog confirm("x")`) of `scope`'s ended session
 * ran, and how it ended (`error`, when it threw); returns the Error reported (the first only is reported).
 */
function reportLateWork(scope: SessionScope, what: string, error?: unknown, stack?: string): Error {
  const state = watches.get().get(scope)
  const where = stack ?? (error instanceof Error ? error.stack : undefined) ?? new Error().stack
  const extension = state && extensionOnStack(where, state.extensionPaths())
  const name = sessionName(scope)
  const outcome = error === undefined ? '' : messageOf(error).startsWith(name) ? ', and used its pi or ctx, which Pi refuses after the end' : `, and threw: ${messageOf(error)}`
  const late = new Error(
    `${what}${extension === undefined ? '' : ` of ${extension}`} ran after ${name} ended${outcome}. Stop it in a session_shutdown handler, or await it before the test ends.`,
    error === undefined ? undefined : { cause: asError(error) },
  )
  if (state === undefined || state.late !== undefined) return late
  state.late = late
  if (state.watched) state.problems.report(late)
  else fileProblems.get().push(late)
  return late
}

/**
 * A refusal of the network guard beneath the session's code (a child process's request, a program it may not
 * start), started at `stack`: it fails the session's test (or, after it, the file), naming the session, its
 * test and the extension. Returns the Error reported.
 */
export function reportRefusal(scope: SessionScope, error: Error, stack: string | undefined): Error {
  const state = watches.get().get(scope)
  const extension = state && extensionOnStack(stack, state.extensionPaths())
  const started = `started${extension === undefined ? '' : ` by ${extension}`} in ${sessionName(scope)}`
  const advice = 'A child process reaches no network in tests: answer the program with pi.exec and an exec rule, or mock node:child_process.'
  const refusal = Object.assign(new Error(`${error.message}; ${started}. ${advice}`), { code: 'ENETUNREACH' })
  if (state === undefined) return refusal
  if (state.name === UNNAMED) (state.unnamed ??= []).push(refusal)
  if (scope.ended === undefined || state.watched) state.problems.report(refusal)
  else fileProblems.get().push(refusal)
  return refusal
}

/** Throws what sessions of this file did after their tests ended; the file's end calls it. */
export function throwFileLateWork(): void {
  const found = fileProblems.get().splice(0)
  if (found.length === 1) throw found[0]
  if (found.length > 1) throw new Error(found.map((e) => e.message).join('\n\n'), { cause: found })
}
