// How a handle runs the test's turns, whatever drives Pi (in process or a `pi` child): one at a time, each
// checked against the playbook, the first cause of a failure reported.
import type { Playbook } from '../model/playbook.js'
import { when, type Action, type Turn } from '../model/script.js'
import type { SessionRecords } from '../records/records.js'
import { runInSession, type SessionScope } from '../shared/session-context.js'
import type { SessionActivity } from './activity.js'
import type { DisposerStack } from './disposer.js'
import type { Problems } from './problems.js'

export interface TurnParts {
  scope: SessionScope
  records: SessionRecords
  playbook: Playbook
  problems: Problems
  /** Waits until Pi is idle and every event reached the records. */
  settle(): Promise<void>
  stack: DisposerStack
  activity: SessionActivity
}

/** What the test called (`run()`, `press()`, `newSession()`, ...), for the messages. */
export type Verb = string

export function turnRunner({ scope, records, playbook, problems, settle, stack, activity }: TurnParts) {
  // One thing at a time: Pi runs one prompt at a time, and a second would be refused by Pi in a way
  // that lets the first end early.
  const exclusive = async <T>(what: Verb, doing: string, work: () => Promise<T>): Promise<T> => {
    if (stack.disposed) throw new Error(`${what} after dispose(): this test session is closed`)
    const busy = activity.doing
    if (busy) throw new Error(`${what} while ${busy} is still running on this session: await it first (a session runs one prompt at a time)`)
    activity.doing = doing
    try {
      return await runInSession(scope, work)
    } finally {
      activity.doing = undefined
    }
  }

  // The first cause wins: Pi's own rejection, then a problem the mocks saw, then the playbook's diagnostic.
  const inTurn = <T>(turn: Turn, work: () => Promise<T>): Promise<T> => {
    playbook.begin(turn)
    records.beginTurn(turn.prompt)
    return finishTurn(work)
  }
  /** The end of a turn that began already (one an extension started): `work`, then Pi settles, then the checks. */
  const finishTurn = async <T>(work: () => Promise<T>): Promise<T> => {
    let failure: unknown
    let result: T | undefined
    try {
      result = await work()
      playbook.ending()
      await settle()
    } catch (error) {
      failure = error
    }
    try {
      problems.throwIfAny()
    } catch (problem) {
      failure ??= problem
    }
    try {
      playbook.end()
    } catch (diagnostic) {
      failure ??= diagnostic
    }
    if (failure !== undefined) throw failure
    return result as T
  }
  /** run(...turns): each turn in order, run by `runTurn`. */
  const run = (runTurn: (turn: Turn) => Promise<void>, turns: Turn[]) =>
    exclusive('run()', `run(${turns.map((turn) => `when(${JSON.stringify(turn?.prompt)})`).join(', ')})`, async () => {
      for (const turn of turns) await runTurn(turn)
    })

  /** command(name, args, actions): a turn whose prompt is `/name args`, once `lookup` says the command is registered. */
  const command = (lookup: CommandLookup, runTurn: (turn: Turn) => Promise<void>, name: string, args: string | undefined, actions: readonly Action[]) =>
    exclusive('command()', `command(${JSON.stringify(name)})`, async () => {
      const { registered, known } = await lookup(name)
      if (!registered) throw new Error(`No command "/${name}" is registered. Registered commands: ${known.map((c) => `/${c}`).join(', ') || 'none'}`)
      await runTurn(when(args ? `/${name} ${args}` : `/${name}`, actions))
    })

  return { exclusive, inTurn, finishTurn, run, command }
}

/** Whether a command is registered, and the names of those that are (for the message when it is not). */
export type CommandLookup = (name: string) => { registered: boolean; known: string[] } | Promise<{ registered: boolean; known: string[] }>

/** The handle's `playbook`: step counts, read when asked. */
export function playbookCounts(playbook: Playbook): { readonly consumed: number; readonly remaining: number } {
  return {
    get consumed() {
      return playbook.consumed
    },
    get remaining() {
      return playbook.remaining
    },
  }
}
