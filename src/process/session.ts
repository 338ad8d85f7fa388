// The process depth: the same plan, playbook, mocks, records and handle as an in-process session, with the
// real `pi` CLI in RPC mode as the Pi they drive. The child asks the harness for the model's answers and
// mocked tools (IPC); its events, dialogs and UI calls come over RPC and fill the same records.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { enterIsolation, homeVariables } from '../isolation/isolation.js'
import { releaseSessionDirs } from '../isolation/session-dirs.js'
import { openMocks } from '../mocks/open.js'
import { Playbook } from '../model/playbook.js'
import { when, type Action, type Turn } from '../model/script.js'
import type { AgentSession, AgentSessionEvent, ForkMessage, LifecycleResult } from '../pi/types.js'
import { editorTextAfter } from '../pi/lifecycle.js'
import { Recorder } from '../records/recorder.js'
import { SessionRecords, type ToolContent } from '../records/records.js'
import { plainLine, timelineText } from '../records/timeline.js'
import { describeReceived, messageOf } from '../shared/errors.js'
import { runInSession, type SessionScope } from '../shared/session-context.js'
import { within } from '../shared/within.js'
import { SessionActivity, trackActivity } from '../session/activity.js'
import { DisposerStack } from '../session/disposer.js'
import type { TestSession } from '../session/handle.js'
import { trackLive } from '../session/live-sessions.js'
import type { SessionPlan } from '../session/plan.js'
import { handlerThrew, Problems } from '../session/problems.js'
import { playbookCounts, turnRunner } from '../session/turns.js'
import { worldFor } from '../session/world.js'
import { markProcessSession } from './process-sessions.js'
import { ToolCallWatch, Waiters } from './turn-watch.js'
import { childArgs, childModel, extensionFiles, listPackages, packageDirs, processSettings } from './child-launch.js'
import { answerChild, answerDialog } from './child-answers.js'
import { describeStderr, startPiChild, type PiChild } from './child.js'
import { INSTANCE_STATUS_KEY, isNotice } from './protocol.js'
import type { RpcRecord } from './rpc-client.js'

/** How long dispose() waits for Pi's orderly shutdown (`session_shutdown`) before it kills the group. */
export const SHUTDOWN_GRACE_MS = 5_000

export async function createProcessSession(plan: SessionPlan): Promise<TestSession> {
  const { options } = plan
  const settings = processSettings(options.process)
  const extensionPaths = extensionFiles(plan)
  const packages = packageDirs(plan.root, settings.packages)
  const dirs = await worldFor(plan, options)
  const stack = new DisposerStack()
  stack.defer(() => releaseSessionDirs(dirs, undefined, !stack.failed))
  const scope: SessionScope = { home: dirs.home, cwd: dirs.cwd }
  const cwd = dirs.cwd
  return runInSession(scope, async () => {
    try {
      const problems = new Problems()
      const recorder = new Recorder(new SessionRecords(), (error) => plan.propagateErrors && problems.report(handlerThrew(error)))
      const activity = new SessionActivity(recorder.records)
      // The mocks that run in the harness (dialog answers, tool mocks) run in the file's isolation, as in process.
      stack.defer((await enterIsolation()).leave)
      let pi: PiChild | undefined
      const abortRun = () => void pi?.rpc.request({ type: 'abort' }).catch(() => {})
      const mocks = openMocks({ ...plan, mockTools: options.mockTools, mockUI: options.mockUI }, { scope, recorder, report: (error) => problems.report(error), abortRun, defer: (disposer) => stack.defer(disposer), cwd: () => cwd })
      const calls = new ToolCallWatch()
      const playbook = new Playbook({
        model: plan.model,
        onRequest: ({ step, context, by }) => recorder.modelRequest(step, context, false, { by }),
        resultFor: (message) => recorder.resultRecord(message.toolCallId, message.toolName, message.content, message.isError, message.details),
        callFor: (toolCallId) => recorder.callRecord(toolCallId),
        onToolCall: (toolCallId, step) => recorder.callAsked(toolCallId, step),
        abort: abortRun,
        report: (error) => problems.report(error),
        stillQueued: () => [],
        ran: (toolCallId) => calls.ran.has(toolCallId),
        timeline: () => timelineText(recorder.records, plainLine),
      })
      activity.playbook = playbook
      if (packages.length > 0) listPackages(dirs.agentDir, packages)
      const agentEnds = new Waiters()
      const strayLines: string[] = []
      const onRecord = (record: RpcRecord) => {
        // The harness extension's mark that Pi started a new instance (/new, /resume, /fork): its records begin here.
        if (record.type === 'extension_ui_request' && record.method === 'setStatus' && record.statusKey === INSTANCE_STATUS_KEY) {
          return recorder.records.beginInstance(activity.doing ?? 'an extension')
        }
        if (record.type === 'extension_ui_request') return void answerDialog(record, mocks, pi!, problems)
        if (record.type === 'extension_error') {
          return recorder.extensionError({ extensionPath: String(record.extensionPath), event: String(record.event), error: String(record.error) })
        }
        if (record.type === 'response') return
        const event = record as unknown as AgentSessionEvent
        if (event.type === 'tool_execution_end') recorder.decided(calls.decision(event.toolCallId, event.toolName, event.result as { content: ToolContent }))
        recorder.event(event)
        if (event.type === 'agent_end') agentEnds.wake()
      }
      pi = startPiChild({
        cwd,
        env: { ...homeVariables(dirs.home, dirs.agentDir), PI_OFFLINE: '1', PI_TELEMETRY: '0', PI_SKIP_VERSION_CHECK: '1', ...settings.env },
        settings: { model: childModel(plan), mockedTools: mocks.mockedTools() },
        args: childArgs(plan, extensionPaths, settings.argv),
        onRecord,
        onStrayLine: (line) => {
          strayLines.push(line)
          problems.report(new Error(`The pi process wrote to stdout outside the RPC protocol: ${JSON.stringify(line)}\nIn RPC mode stdout carries the protocol alone; an extension must log to stderr (console.error) or a file.`))
        },
        onMessage: (message, answer) => {
          const answered = answerChild(message, { playbook, mocks, calls })
          // A notice shares its id with the request it is about (an abort, its model request): an answer to it would settle that request.
          if (isNotice(message)) return void answered.catch((error: unknown) => problems.report(error instanceof Error ? error : new Error(messageOf(error))))
          void answered.then((value) => answer({ value }), (error: unknown) => answer({ error: messageOf(error) }))
        },
        onExit: (description) => problems.report(new Error(`The pi process ${description} while the session was alive.${describeStderr(pi!.stderr())}`)),
      })
      const child = pi
      stack.defer(() => endChild(child))
      await started(child, settings.startupTimeout)
      problems.throwIfAny()

      const bounded = <T>(doing: string, work: Promise<T>) => boundTurn(doing, work, settings.turnTimeout, child, activity)
      // Until Pi is idle, bounded as the turn is: a run Pi never ends (an abort that never reached it) fails naming it.
      const settle = () => {
        let stopped = false
        const idle = async () => {
          while (!stopped) {
            const { data } = await child.rpc.request({ type: 'get_state' })
            if (!(data as { isStreaming: boolean }).isStreaming) return
            await agentEnds.next(100)
          }
        }
        return bounded('the turn', idle()).finally(() => (stopped = true))
      }
      const { exclusive, inTurn, run, command } = turnRunner({ scope, records: recorder.records, playbook, problems, settle, stack, activity })
      const runTurn = (turn: Turn) => inTurn(turn, () => bounded(`when(${JSON.stringify(turn.prompt)})`, prompt(child, turn.prompt)))
      // A step of Pi's life, over RPC: run like a turn (what its handlers lead to is scripted), and bounded as one.
      // The file Pi writes the session to, for saveSession() (a sync call): known at start and after each step of Pi's life.
      let sessionFile = await sessionFileOf(child)
      const lifecycle = (name: string, rpcCommand: RpcRecord, result: (data: Record<string, unknown>) => LifecycleResult) =>
        exclusive(name, name, () =>
          inTurn(when(name), async () => {
            const done = result((await bounded(name, child.rpc.request(rpcCommand))).data as Record<string, unknown>)
            sessionFile = await sessionFileOf(child)
            return done
          }),
        )

      const t = {
        cwd,
        home: dirs.home,
        events: recorder.records,
        playbook: playbookCounts(playbook),
        run: (...turns: Turn[]) => run(runTurn, turns),
        command: (name: string, args?: string, actions: readonly Action[] = []) => command((asked) => commandsOf(child, asked), runTurn, name, args, actions),
        emit: (eventName) =>
          Promise.reject(new Error(`emit(${JSON.stringify(eventName)}): Pi's RPC protocol has no command that fires an extension event; emit() works in process sessions only`)),
        // Pi's life around a session, keys and turns an extension starts itself are driven in process only.
        next: (turn: Turn) => inProcessOnly(`t.next(when(${JSON.stringify(turn?.prompt)}))`),
        press: (key: string) => inProcessOnly(`press(${JSON.stringify(key)})`),
        newSession: () => lifecycle('newSession()', { type: 'new_session' }, ({ cancelled }) => ({ cancelled: cancelled === true })),
        resume: (path: string) => {
          if (typeof path !== 'string' || path === '') throw new TypeError(`resume(path): path must be a session file (a non-empty string), got ${describeReceived(path)}`)
          return lifecycle(`resume(${JSON.stringify(path)})`, { type: 'switch_session', sessionPath: resolve(path) }, ({ cancelled }) => ({ cancelled: cancelled === true }))
        },
        fork: (entryId: string, position: 'before' | 'at' = 'before') => {
          // Pi's RPC `fork` forks before a user message only; `clone` copies the whole branch, not up to an entry.
          if (position !== 'before') return inProcessOnly(`fork(${JSON.stringify(entryId)}, ${JSON.stringify(position)})`)
          return lifecycle(`fork(${JSON.stringify(entryId)})`, { type: 'fork', entryId }, ({ cancelled, text }) => {
            const result = cancelled === true || text === undefined ? { cancelled: cancelled === true } : { cancelled: false, selectedText: String(text) }
            // Pi's RPC mode has no editor: the test's is here, where the child's setEditorText lands too.
            mocks.editor.text = editorTextAfter('fork', result, mocks.editor.text)
            return result
          })
        },
        forkMessages: async () => ((await child.rpc.request({ type: 'get_fork_messages' })).data as { messages: ForkMessage[] }).messages,
        navigate: (entryId: string) => inProcessOnly(`navigate(${JSON.stringify(entryId)})`),
        reload: () => inProcessOnly('reload()'),
        get instance() {
          return recorder.records.instance
        },
        // What the child's extensions set through the RPC protocol's setEditorText, answered by the mock UI.
        get editorText() {
          return mocks.ui.getEditorText()
        },
        // Esc: the queue dropped, then the run aborted; Pi takes the lines in order. `clear_queue` goes without an id:
        // Pi 0.73 has no such command and answers an unknown one without the id, so a request of it would never settle.
        abort: () => {
          playbook.abortedByTest()
          if (child.exited) return
          child.rpc.send({ type: 'clear_queue' })
          void child.rpc.request({ type: 'abort' }).catch(() => {})
        },
        firedEvents: [],
        verify: () => problems.throwIfAny(),
        pendingMocks: () => mocks.pending(),
        saveSession: (path: string) => {
          if (typeof path !== 'string' || path === '') throw new TypeError(`saveSession(path): path must be a file path (a non-empty string), got ${describeReceived(path)}`)
          return copySessionFile(sessionFile, path)
        },
        dispose: () => runInSession(scope, () => stack.dispose()),
      } as Omit<TestSession, 'session'> as TestSession
      // Not enumerable: printing the handle (a failed expectation) must not throw.
      Object.defineProperty(t, 'session', {
        get(): AgentSession {
          throw new Error('t.session: a process session has no AgentSession in this process; Pi runs in the `pi` child. Read t.events, or use an in-process session.')
        },
      })
      trackActivity(t, activity)
      markProcessSession(t)
      stack.defer(trackLive(t.dispose))
      return t
    } catch (error) {
      return stack.unwind(error)
    }
  })
}

/** Started once Pi answers its first command: extensions loaded, `session_start` fired. Bounded and named. */
async function started(child: PiChild, timeoutMs: number): Promise<void> {
  let answered: unknown
  try {
    answered = await within(child.rpc.request({ type: 'get_state' }), timeoutMs)
  } catch (error) {
    throw new Error(`createTestSession({ process: true }): the pi process did not start: ${messageOf(error)}`, { cause: error })
  }
  if (answered === undefined) {
    throw new Error(`createTestSession({ process: true }): the pi process did not answer within ${timeoutMs} ms of starting (process.startupTimeout).${describeStderr(child.stderr())}`)
  }
}

/** The commands Pi lists over RPC: extensions' commands, prompt templates and skills, as `/name` runs them. */
async function commandsOf(child: PiChild, name: string): Promise<{ registered: boolean; known: string[] }> {
  const { data } = await child.rpc.request({ type: 'get_commands' })
  const commands = (data as { commands: { name: string; source?: string }[] }).commands
  const known = commands.filter((command) => command.source === undefined || command.source === 'extension').map((command) => command.name)
  return { registered: commands.some((command) => command.name === name), known }
}

async function sessionFileOf(child: PiChild): Promise<string | undefined> {
  const { data } = await child.rpc.request({ type: 'get_state' })
  return (data as { sessionFile?: string }).sessionFile
}

/** saveSession() of a process session: a copy of the file Pi itself writes the session to. */
function copySessionFile(sessionFile: string | undefined, path: string): string {
  const target = resolve(path)
  const where = `saveSession(${JSON.stringify(path)})`
  // Pi writes its file once the session has an answer of the model; a session after dispose() has none left.
  if (sessionFile === undefined || !existsSync(sessionFile)) {
    throw new Error(`${where}: the pi process has not written its session file yet (Pi writes it once the model has answered a turn), or the session was disposed`)
  }
  mkdirSync(dirname(target), { recursive: true })
  copyFileSync(sessionFile, target)
  return target
}

async function prompt(child: PiChild, message: string): Promise<void> {
  await child.rpc.request({ type: 'prompt', message })
}

async function boundTurn<T>(doing: string, work: Promise<T>, timeoutMs: number, child: PiChild, activity: SessionActivity): Promise<T> {
  const done = await within(work, timeoutMs)
  if (done) return done.value
  throw new Error(
    `${activity.describe() ?? doing}: the pi process did not finish the turn within ${timeoutMs} ms (process.turnTimeout).${describeStderr(child.stderr())}`,
  )
}

/** Ends the child, bounded: Pi's own shutdown first (session_shutdown), then the group. Nothing survives. */
async function endChild(child: PiChild): Promise<void> {
  const { stray, exitedInTime } = await child.end(SHUTDOWN_GRACE_MS)
  if (stray.length > 0) throw new Error(`dispose(): processes of the pi child survived SIGKILL: ${stray.join(', ')}`)
  if (!exitedInTime) {
    throw new Error(`dispose(): the pi process did not shut down within ${SHUTDOWN_GRACE_MS} ms of its stdin closing; its process group was killed.${describeStderr(child.stderr())}`)
  }
}

/** What a process session cannot do: the test fails naming the call, and where it works. */
function inProcessOnly(what: string): Promise<never> {
  return Promise.reject(new Error(`${what}: not available for a process session (Pi runs in the \`pi\` child, driven over RPC); it works in process sessions only`))
}
