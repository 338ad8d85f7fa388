// createTestSession: a real Pi AgentSession whose model is a playbook and whose edges are mocks, built
// as a pipeline of named steps over one disposer stack.
import { mkdtempSync, rmdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { enterIsolation } from '../isolation/isolation.js'
import { fireSequence } from '../mocks/events.js'
import { openMocks, type SessionMocks } from '../mocks/open.js'
import { seedSession } from '../mocks/session-state.js'
import { Playbook } from '../model/playbook.js'
import { bindSession, createPiSession, emitExtensionEvent, emitShutdown, replaceModel, trackSettling, type AgentSession, type Model } from '../pi/index.js'
import { Recorder } from '../records/recorder.js'
import { SessionRecords, type ExtensionErrorRecord } from '../records/records.js'
import { SessionActivity, trackActivity } from './activity.js'
import { DisposerStack } from './disposer.js'
import { loadExtensions } from './extensions.js'
import { sessionHandle, type TestSession } from './handle.js'
import type { TestSessionOptions } from './options.js'
import { planSession, type SessionPlan } from './plan.js'
import { Problems } from './problems.js'

export type { TestSession } from './handle.js'
export type { TestSessionOptions } from './options.js'

export async function createTestSession(options: TestSessionOptions = {}): Promise<TestSession> {
  const plan = planSession(options)
  const stack = new DisposerStack()
  try {
    const problems = new Problems()
    const recorder = new Recorder(new SessionRecords(), (error) => plan.propagateErrors && problems.report(handlerThrew(error)))
    const activity = new SessionActivity(recorder.records)
    let pi: AgentSession | undefined
    const mocks = openMocks(
      { ...plan, mockTools: options.mockTools, mockUI: options.mockUI },
      { recorder, report: (error) => problems.report(error), abortRun: () => pi?.agent.abort(), defer: (disposer) => stack.defer(disposer) },
    )
    const { agentDir } = enterIsolated(stack)
    const cwd = sessionCwd(plan, stack)
    pi = await startPi(plan, { cwd, agentDir, mocks, activity }, stack)
    const playbook = (activity.playbook = scriptModel(pi, plan.model, recorder))
    recorder.attach(pi)
    const settle = trackSettling(pi)
    await bindExtensions(pi, mocks, recorder, activity, stack)
    const firedEvents = await fireSequence(plan.blocks.events?.fire_sequence ?? [], (event, payload) => emitExtensionEvent(pi, event, payload))
    const t = sessionHandle({ pi, cwd, records: recorder.records, playbook, problems, mocks, firedEvents, settle, stack, activity })
    trackActivity(t, activity)
    return t
  } catch (error) {
    return stack.unwind(error)
  }
}

/** The process's isolated home and agent dir (shared with the test file's), left when the session ends. */
function enterIsolated(stack: DisposerStack) {
  const { isolation, leave } = enterIsolation()
  stack.defer(leave)
  return isolation
}

/** The caller's cwd, or a fresh temp dir removed at the end. */
function sessionCwd(plan: SessionPlan, stack: DisposerStack): string {
  if (plan.cwd !== undefined) return plan.cwd
  const cwd = mkdtempSync(join(tmpdir(), 'pi-cwd-'))
  stack.defer(() => removeDir(cwd))
  return cwd
}

/** A session's cwd is usually still empty: one rmdir then, the recursive removal otherwise. */
function removeDir(dir: string): void {
  try {
    rmdirSync(dir)
  } catch {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Loads the extensions and creates the real AgentSession with them, the mocked built-in tools and the spec's state. */
async function startPi(
  plan: SessionPlan,
  { cwd, agentDir, mocks, activity }: { cwd: string; agentDir: string; mocks: SessionMocks; activity: SessionActivity },
  stack: DisposerStack,
) {
  const { options, model, availableModels, blocks } = plan
  const extensions = await loadExtensions(options.extensions ?? [], {
    root: plan.root,
    importModule: options.importModule,
    extensionApi: mocks.extensionApi,
    loadTimeout: options.extensionLoadTimeout,
    handlersRunning: activity.handlers,
  })
  const created = await createPiSession({
    cwd,
    agentDir,
    extensions,
    model,
    ...(availableModels.length > 0 ? { availableModels } : {}),
    ...(blocks.model?.thinking_level ? { thinkingLevel: blocks.model.thinking_level } : {}),
    seed: (manager) => seedSession(manager, blocks.session, model),
    ...(options.flags ? { flags: options.flags } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
    customToolsFor: (extensionTools) => mocks.builtinTools(cwd, extensionTools),
  })
  const pi = created.session
  stack.defer(() => pi.dispose())
  if (created.loadErrors.length > 0) {
    throw new Error(`Extension failed to load:\n${created.loadErrors.map((e) => `  ${e.path}: ${e.error}`).join('\n')}`)
  }
  mocks.checkToolsExist(created.extensionTools)
  if (options.toolExecution) pi.agent.toolExecution = options.toolExecution
  return pi
}

/** The playbook answers every model request in place of the model; each request is recorded. */
function scriptModel(pi: AgentSession, model: Model<string>, recorder: Recorder): Playbook {
  const playbook = new Playbook({
    model,
    onRequest: ({ step, context }) => recorder.modelRequest(step, context, !pi.extensionRunner.hasHandlers('context')),
    resultFor: (message) => recorder.resultRecord(message.toolCallId, message.toolName, message.content, message.isError, message.details),
    onToolCall: (toolCallId, step) => recorder.callAsked(toolCallId, step),
  })
  replaceModel(pi, (context, signal) => playbook.answer(context, signal))
  return playbook
}

/**
 * Binds the mock UI and starts the extensions (`session_start`); from then on the session ends as Pi's
 * does: abort, `session_shutdown`, dispose. A handler's crash is recorded.
 */
async function bindExtensions(pi: AgentSession, mocks: SessionMocks, recorder: Recorder, activity: SessionActivity, stack: DisposerStack) {
  await bindSession(pi, { ui: mocks.ui, headless: mocks.headless, onError: (error) => recorder.extensionError(error) })
  stack.defer(() => emitShutdown(pi))
  stack.defer(() => stopAgent(pi, activity))
}

/** How long dispose() waits for the agent to stop after abort() before it cleans up anyway. */
const STOP_GRACE_MS = 1000

/**
 * Aborts the agent and waits, bounded, until it is idle: a tool that never settles and ignores its abort
 * signal must not keep the session's temp dirs, or the test's end, waiting forever. It is named instead.
 */
async function stopAgent(pi: AgentSession, activity: SessionActivity): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const stopped = await Promise.race([
    pi.abort().then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS, false))),
  ]).finally(() => clearTimeout(timer))
  if (stopped) return
  const running = activity.unfinished()
  const what = running.length > 0 ? running.join(', ') : 'no tool, extension handler or model request (Pi itself)'
  throw new Error(
    `dispose(): the agent did not stop within ${STOP_GRACE_MS} ms of abort(): ${what} was still running and ignored its abort signal. ` +
      "The session's temp dirs are removed all the same; what was running is abandoned.",
  )
}

/** With propagateErrors (the default), a handler's crash fails the test, even where Pi fails safe. */
function handlerThrew(error: ExtensionErrorRecord): Error {
  return new Error(`Extension ${error.extensionPath} threw in its "${error.event}" handler: ${error.error}`)
}
