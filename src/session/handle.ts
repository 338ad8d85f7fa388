// The handle a test holds: run turns and commands, fire events, check problems, dispose.
import type { FiredEvent } from '../mocks/events.js'
import type { SessionMocks } from '../mocks/open.js'
import type { PendingRule } from '../mocks/rules.js'
import type { Playbook } from '../model/playbook.js'
import { when, type Action, type Turn } from '../model/script.js'
import { emitExtensionEvent, pressEscape, saveSessionFile } from '../pi/index.js'
import type { AgentSession } from '../pi/types.js'
import type { SessionRecords } from '../records/records.js'
import { describeReceived, messageOf } from '../shared/errors.js'
import { runInSession, type SessionScope } from '../shared/session-context.js'
import type { SessionActivity } from './activity.js'
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
  /** Runs a registered slash command (with the model actions it leads to) and waits until Pi is idle. */
  command(name: string, args?: string, actions?: readonly Action[]): Promise<void>
  /**
   * Fires an extension event through Pi's runner and returns what the handlers returned; `actions` script
   * what the handlers lead to (forExtension(...) answers for their own model calls).
   */
  emit(eventName: string, payload?: Record<string, unknown>, actions?: readonly Action[]): Promise<unknown>
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
  pi: AgentSession
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

export function sessionHandle({ pi, cwd, home, scope, records, playbook, problems, mocks, firedEvents, settle, stack, activity }: SessionParts): TestSession {
  const { exclusive, inTurn, run, command } = turnRunner({ scope, records, playbook, problems, settle, stack, activity })
  const runTurn = (turn: Turn) => inTurn(turn, () => pi.prompt(turn.prompt))

  return {
    session: pi,
    cwd,
    home,
    events: records,
    playbook: playbookCounts(playbook),
    run: (...turns) => run(runTurn, turns),
    command: (name, args, actions = []) =>
      command(
        (asked) => ({ registered: pi.extensionRunner.getCommand(asked) !== undefined, known: pi.extensionRunner.getRegisteredCommands().map((c) => c.invocationName) }),
        runTurn,
        name,
        args,
        actions,
      ),
    emit: (eventName, payload = {}, actions = []) =>
      exclusive('emit()', `emit(${JSON.stringify(eventName)})`, () =>
        inTurn(when(`emit(${JSON.stringify(eventName)})`, actions), () => emitExtensionEvent(pi, eventName, payload)),
      ),
    abort: () => {
      playbook.abortedByTest()
      pressEscape(pi)
    },
    firedEvents,
    verify: () => problems.throwIfAny(),
    pendingMocks: () => mocks.pending(),
    saveSession: (path) => {
      if (typeof path !== 'string' || path === '') throw new TypeError(`saveSession(path): path must be a file path (a non-empty string), got ${describeReceived(path)}`)
      try {
        return saveSessionFile(pi, path)
      } catch (error) {
        throw new Error(`saveSession(${JSON.stringify(path)}): ${messageOf(error)}`, { cause: error })
      }
    },
    dispose: () => runInSession(scope, () => stack.dispose()),
  }
}
