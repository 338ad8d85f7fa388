// The handle a test holds: run turns and commands, fire events, check problems, dispose.
import type { FiredEvent } from '../mocks/events.js'
import type { SessionMocks } from '../mocks/open.js'
import type { PendingRule } from '../mocks/rules.js'
import type { Playbook } from '../model/playbook.js'
import { when, type Action, type Turn } from '../model/script.js'
import {
  emitExtensionEvent,
  editorTextAfter,
  forkMessages,
  forkSession,
  navigateTree,
  pressEscape,
  reloadSession,
  resolveShortcut,
  resumeSession,
  saveSessionFile,
  startNewSession,
  type RegisteredShortcut,
} from '../pi/index.js'
import { keystrokes } from '../mocks/keys.js'
import type { AgentSession, AgentSessionRuntime, ForkMessage, LifecycleResult } from '../pi/types.js'
import type { SessionRecords } from '../records/records.js'
import { describeReceived, messageOf } from '../shared/errors.js'
export type { ForkMessage, LifecycleResult } from '../pi/types.js'
import { runInSession, type SessionScope } from '../shared/session-context.js'
import type { SessionActivity } from './activity.js'
import { AwaitedTurn } from './awaited-turn.js'
import type { DisposerStack } from './disposer.js'
import type { Problems } from './problems.js'
import { playbookCounts, turnRunner } from './turns.js'

export interface TestSession {
  /** The real Pi AgentSession. */
  readonly session: AgentSession
  readonly cwd: string
  /**
   * The session's own temp HOME (`<tmp>/pi-harness-XXXXXX/session-home-XXXXXX`), removed by dispose(): os.homedir() in
   * the session's code, and Pi's agent dir is `<home>/.pi/agent`.
   */
  readonly home: string
  readonly events: SessionRecords
  readonly playbook: { readonly consumed: number; readonly remaining: number }
  /** Sends each turn's prompt and waits until Pi is idle; throws when the script and Pi disagreed. */
  run(...turns: Turn[]): Promise<void>
  /**
   * Scripts the next turn an extension starts on its own (from `agent_end`, a command or a timer, with
   * `pi.sendUserMessage` or a triggering `pi.sendMessage`): its prompt is the message that starts it.
   * Settles when that turn has ended; rejects with what a run() of it would have thrown.
   */
  next(turn: Turn): PromiseLike<void>
  /** Runs a registered slash command (with the model actions it leads to) and waits until Pi is idle. */
  command(name: string, args?: string, actions?: readonly Action[]): Promise<void>
  /**
   * Fires an extension event through Pi's runner and returns what the handlers returned; `actions` script
   * what the handlers lead to (forExtension(...) answers for their own model calls).
   */
  emit(eventName: string, payload?: Record<string, unknown>, actions?: readonly Action[]): Promise<unknown>
  /**
   * Presses a key (a pi-tui key id: `'ctrl+shift+u'`) as the terminal sends it, and runs the shortcut an
   * extension registered for it, resolved as Pi's interactive mode does, with the extensions' context; waits
   * until Pi is idle. `actions` script what the handler leads to. A key no shortcut has fails, listing them.
   */
  press(key: string, actions?: readonly Action[]): Promise<void>
  /**
   * /new, through Pi's session runtime: `session_before_switch` may cancel (then `{ cancelled: true }`); else the
   * old instance gets `session_shutdown`, every extension factory runs again, and `session_start` fires with
   * reason `new`. The playbook, mocks and records carry on; `t.session` is the new instance.
   */
  newSession(): Promise<LifecycleResult>
  /** /resume of a session file (e.g. one `saveSession()` wrote), as newSession() goes; `session_start` reason `resume`. */
  resume(path: string): Promise<LifecycleResult>
  /**
   * /fork at an entry (`t.session.sessionManager.getEntries()`): `before` a user message (Pi's default; its text
   * comes back as `selectedText`) or `at` any entry. `session_before_fork` may cancel; `session_start` reason `fork`.
   */
  fork(entryId: string, position?: 'before' | 'at'): Promise<LifecycleResult>
  /**
   * The user messages of the current branch that fork() can fork before, as Pi's /fork selector lists them:
   * `{ entryId, text }`, oldest first. The same call at both depths (`t.session` is in process only).
   */
  forkMessages(): Promise<ForkMessage[]>
  /** /tree: moves to an entry of the same session (no summary); `session_before_tree` may cancel. */
  navigate(entryId: string): Promise<LifecycleResult>
  /** /reload: `session_shutdown`, every factory runs again, `session_start` with reason `reload`. */
  reload(): Promise<LifecycleResult>
  /** Which instance of the session runs now: 1, then one more after each newSession(), resume(), fork(), reload(). */
  readonly instance: number
  /**
   * The editor's text now, as extensions set and read it (`ctx.ui.setEditorText`, `pasteToEditor`); it starts as
   * `mockUI.editorText`. As in Pi, fork() puts the forked user message there, and navigate() a user message moved to into an empty editor.
   */
  readonly editorText: string
  /**
   * Aborts what Pi is running, as the user's Esc does: queued messages are dropped and the run in
   * progress ends with stop reason `aborted`. Returns at once; nothing happens when Pi is idle.
   */
  abort(): void
  /** Throws what went wrong outside run(), command() and emit(): an unhandled call, a strict dialog. */
  verify(): void
  /** Exec, HTTP and tool rules with a `times` limit that have not answered that often yet. */
  pendingMocks(): PendingRule[]
  /** The events the mock spec fired at start, with what the handlers returned. */
  readonly firedEvents: readonly FiredEvent[]
  /**
   * Writes the session so far as Pi's own session file (JSONL: a header, then each entry of the current
   * branch), which Pi's `SessionManager.open` and `pi --session` read; returns the file's absolute path.
   * Works before and after dispose().
   */
  saveSession(path: string): string
  /** Fires `session_shutdown` and removes temp dirs; safe to call twice. */
  dispose(): Promise<void>
}

export interface SessionParts {
  /** The session's instance now: /new, /resume and /fork replace it through `runtime`. */
  current: () => AgentSession
  runtime: AgentSessionRuntime
  cwd: string
  home: string
  /** The session's context: run(), command(), emit() and dispose() run in it. */
  scope: SessionScope
  records: SessionRecords
  playbook: Playbook
  problems: Problems
  mocks: SessionMocks
  firedEvents: FiredEvent[]
  /** Waits until Pi is idle and every event reached the records. */
  settle(): Promise<void>
  /** Everything the session made, unwound by dispose(). */
  stack: DisposerStack
  /** What the session is doing, for the messages of a test that timed out on it. */
  activity: SessionActivity
}

export function sessionHandle({ current, runtime, cwd, home, scope, records, playbook, problems, mocks, firedEvents, settle, stack, activity }: SessionParts): TestSession {
  const { exclusive, inTurn, finishTurn, run, command } = turnRunner({ scope, records, playbook, problems, settle, stack, activity })
  // A step of Pi's life runs like a turn: what its handlers lead to is scripted, their problems fail it.
  // A new instance's records begin when Pi loads its extensions again (see create.ts).
  const lifecycle = (name: string, step: () => Promise<LifecycleResult>) => exclusive(name, name, () => inTurn(when(name), step))
  // The editor as Pi's interactive mode leaves it after /fork and /tree.
  const inEditor = (step: 'fork' | 'navigate', result: LifecycleResult) => {
    mocks.editor.text = editorTextAfter(step, result, mocks.editor.text)
    return result
  }
  const runTurn = (turn: Turn) => inTurn(turn, () => current().prompt(turn.prompt))

  // A turn an extension starts runs on its own; the playbook tells when it begins, and it ends once Pi settles.
  const next = (turn: Turn): AwaitedTurn => {
    const named = `t.next(when(${JSON.stringify(turn?.prompt)}))`
    const awaited = new AwaitedTurn(
      (error) => problems.report(error),
      () => activity.awaiting.set(awaited, `${named}, which no extension has started yet`),
    )
    playbook.upcoming.add(turn, (index) => {
      waitingToStart.delete(awaited)
      records.beginTurn(turn.prompt)
      if (activity.awaiting.has(awaited)) activity.awaiting.set(awaited, `${named} (turn ${index})`)
      void runInSession(scope, () => finishTurn(async () => undefined)).then(
        () => awaited.resolve(),
        (error: unknown) => awaited.fail(error instanceof Error ? error : new Error(String(error))),
      ).finally(() => activity.awaiting.delete(awaited))
    })
    waitingToStart.add(awaited)
    return awaited
  }
  const waitingToStart = new Set<AwaitedTurn>()
  // A turn scripted for an extension that never started it fails the test when the session ends.
  stack.defer(() => {
    const never = playbook.upcoming.dropUnstarted()
    if (never.length === 0) return
    const error = new Error(
      `${never.map((prompt) => `t.next(when(${JSON.stringify(prompt)}))`).join(', ')} was never started: no extension started a turn of its own ` +
        'before the session ended.',
    )
    for (const awaited of waitingToStart) awaited.abandon(error)
    throw error
  })

  return {
    get session() {
      return current()
    },
    cwd,
    home,
    events: records,
    playbook: playbookCounts(playbook),
    next,
    run: (...turns) => run(runTurn, turns),
    command: (name, args, actions = []) =>
      command(
        (asked) => ({ registered: current().extensionRunner.getCommand(asked) !== undefined, known: current().extensionRunner.getRegisteredCommands().map((c) => c.invocationName) }),
        runTurn,
        name,
        args,
        actions,
      ),
    emit: (eventName, payload = {}, actions = []) =>
      exclusive('emit()', `emit(${JSON.stringify(eventName)})`, () =>
        inTurn(when(`emit(${JSON.stringify(eventName)})`, actions), () => emitExtensionEvent(current(), eventName, payload)),
      ),
    press: (key, actions = []) =>
      exclusive('press()', `press(${JSON.stringify(key)})`, async () => {
        const [bytes] = keystrokes(key, `press(${JSON.stringify(key)})`)
        const found = await resolveShortcut(current(), bytes!)
        if ('registered' in found) {
          throw new Error(`press(${JSON.stringify(key)}): no extension registered a shortcut for this key. Registered shortcuts: ${found.registered.map(describeShortcut).join(', ') || 'none'}`)
        }
        await inTurn(when(`press(${JSON.stringify(key)})`, actions), async () => {
          try {
            await found.handler()
          } catch (error) {
            throw new Error(`The ${describeShortcut(found.shortcut)} shortcut's handler threw: ${messageOf(error)}`, { cause: error })
          }
        })
      }),
    newSession: () => lifecycle('newSession()', () => startNewSession(runtime)),
    resume: (path) => {
      if (typeof path !== 'string' || path === '') throw new TypeError(`resume(path): path must be a session file (a non-empty string), got ${describeReceived(path)}`)
      return lifecycle(`resume(${JSON.stringify(path)})`, () => resumeSession(runtime, path))
    },
    fork: (entryId, position = 'before') =>
      lifecycle(`fork(${JSON.stringify(entryId)})`, async () => inEditor('fork', await forkSession(runtime, entryId, position))),
    forkMessages: async () => forkMessages(current()),
    navigate: (entryId) => lifecycle(`navigate(${JSON.stringify(entryId)})`, async () => inEditor('navigate', await navigateTree(current(), entryId))),
    reload: () => lifecycle('reload()', () => reloadSession(current())),
    get instance() {
      return records.instance
    },
    get editorText() {
      return mocks.ui.getEditorText()
    },
    abort: () => {
      playbook.abortedByTest()
      pressEscape(current())
    },
    firedEvents,
    verify: () => problems.throwIfAny(),
    pendingMocks: () => mocks.pending(),
    saveSession: (path) => {
      if (typeof path !== 'string' || path === '') throw new TypeError(`saveSession(path): path must be a file path (a non-empty string), got ${describeReceived(path)}`)
      try {
        return saveSessionFile(current(), path)
      } catch (error) {
        throw new Error(`saveSession(${JSON.stringify(path)}): ${messageOf(error)}`, { cause: error })
      }
    },
    dispose: () => runInSession(scope, () => stack.dispose()),
  }
}

/** `ctrl+shift+u ("Cycle presets", /repo/preset.ts)` */
const describeShortcut = ({ key, description, extensionPath }: RegisteredShortcut) =>
  `${key} (${description === undefined ? '' : `${JSON.stringify(description)}, `}${extensionPath})`
