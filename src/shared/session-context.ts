// Which test session the running code belongs to: an async context entered around everything a session
// runs (its creation, run(), command(), emit(), dispose()), inherited by whatever that work starts
// (timers, fetches, promises). Per-session answers (HTTP rules, the home) are looked up by it.
import { AsyncLocalStorage } from 'node:async_hooks'

/** One session, as the code it runs sees it; per-session state elsewhere is keyed by this object. */
export interface SessionScope {
  /** The session's HOME (os.homedir() in its context). */
  readonly home: string
  /** The session's working directory (process.cwd() in its context); process.chdir() in its context moves it. */
  cwd: string
  /**
   * Set when the session has ended: reports `what` of it that still ran (a timer, a model call, a dialog),
   * with the error it threw if any and the caller's stack, and returns the Error that says so.
   */
  ended?: (what: string, error?: unknown, stack?: string) => Error
  /**
   * Takes a refusal of the network guard beneath the session's code (a child process's request, a program it
   * may not start), started at `stack`: reports it so that its test fails, and returns it naming the session,
   * its test and the extension.
   */
  refused?: (error: Error, stack: string | undefined) => Error
  /** The instance of the session running now: 1, then one more after each /new, /resume, /fork and /reload. */
  instanceNow?: () => number
  /**
   * Reports `what` (a timer, a model call, a dialog) that instance `bornIn` started and that ran after a later
   * instance replaced it (Pi refuses a replaced instance's pi and ctx), with the error it threw if any and the
   * caller's stack, and returns the Error that says so.
   */
  replaced?: (what: string, bornIn: number, error?: unknown, stack?: string) => Error
  /** Programs the network guard lets child processes start, which it would refuse (`allowPrograms`). */
  allowedPrograms?: readonly string[]
}

interface SessionContexts {
  storage: AsyncLocalStorage<SessionScope>
  /** The instance of its session that started the running code, where a timer says so (see late-timers). */
  instances?: AsyncLocalStorage<number>
  /** The sessions alive, oldest first. */
  alive: SessionScope[]
}

// On `process`, not globalThis: os.homedir() is replaced once per process and reads this from every
// realm (a VM pool's file has its own globalThis) and every copy of this module (a file's reset).
const KEY = Symbol.for('vitest-environment-pi:session-contexts')
const holder = process as unknown as { [KEY]?: SessionContexts }
const contexts: SessionContexts = (holder[KEY] ??= { storage: new AsyncLocalStorage(), alive: [] })
const instances = (contexts.instances ??= new AsyncLocalStorage())

/** Runs `work` (and all it starts) as code of `scope`'s session. */
export function runInSession<T>(scope: SessionScope, work: () => T): T {
  return contexts.storage.run(scope, work)
}

/** Runs `work` as code of no session: the harness's own work (Vite's module loader) that must see the real process. */
export function outsideSessions<T>(work: () => T): T {
  return contexts.storage.exit(work)
}

/** The session whose code is running now, if the running code was started by one. */
export function currentSession(): SessionScope | undefined {
  return contexts.storage.getStore()
}

/** Runs `work` (and all it starts) as code that instance `instance` of the running session started. */
export function runAsInstance<T>(instance: number, work: () => T): T {
  return instances.run(instance, work)
}

/** The instance of its session that started the running code, when a timer of it runs it; else undefined. */
export function startedByInstance(): number | undefined {
  return instances.getStore()
}

/** The replaced instance of `scope`'s session that started the running code, if one did (a later one runs now). */
export function replacedInstance(scope: SessionScope): number | undefined {
  const bornIn = instances.getStore()
  return bornIn !== undefined && scope.instanceNow !== undefined && bornIn !== scope.instanceNow() ? bornIn : undefined
}

/** The sessions alive now, oldest first. */
export function aliveSessions(): readonly SessionScope[] {
  return contexts.alive
}

/** Counts `scope` as alive until the returned function is called (once). */
export function markAlive(scope: SessionScope): () => void {
  contexts.alive.push(scope)
  let ended = false
  return () => {
    if (ended) return
    ended = true
    const at = contexts.alive.lastIndexOf(scope)
    if (at >= 0) contexts.alive.splice(at, 1)
  }
}
