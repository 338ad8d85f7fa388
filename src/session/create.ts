// createTestSession: a real Pi AgentSession whose model is a playbook and whose edges are mocks, built
// as a pipeline of named steps over one disposer stack.
import { enterIsolation, enterSessionHome } from '../isolation/isolation.js'
import { releaseSessionDirs, type SessionDirs } from '../isolation/session-dirs.js'
import { loadHttpInterception } from '../mocks/http-interceptor.js'
import { fireSequence } from '../mocks/events.js'
import { openMocks, type SessionMocks } from '../mocks/open.js'
import { seedSession } from '../mocks/session-state.js'
import { Playbook } from '../model/playbook.js'
import {
  answerExtensionModelCalls,
  askedByPi,
  bindSession,
  createPiSession,
  emitExtensionEvent,
  emitShutdown,
  extensionOnStack,
  invalidateExtensions,
  preloadTui,
  pressEscape,
  replaceModel,
  trackSettling,
  watchQueuedMessages,
  watchRenders,
  type Drawing,
} from '../pi/index.js'
import type { AgentSession, Model } from '../pi/types.js'
import { Recorder } from '../records/recorder.js'
import { SessionRecords, type ExtensionErrorRecord } from '../records/records.js'
import { plainLine, timelineText } from '../records/timeline.js'
import { runInSession, type SessionScope } from '../shared/session-context.js'
import { within } from '../shared/within.js'
import { SessionActivity, trackActivity } from './activity.js'
import { DisposerStack } from './disposer.js'
import { loadExtensions } from './extensions.js'
import { sessionHandle, type TestSession } from './handle.js'
import { endLateWork, linkLateWork, reportRefusal, sessionName, watchLateWork } from './late-work.js'
import { trackLive } from './live-sessions.js'
import type { TestSessionOptions } from './options.js'
import { planSession, type SessionPlan } from './plan.js'
import { rememberDirs } from './restart.js'
import { worldFor } from './world.js'
import { handlerThrew, Problems } from './problems.js'

export type { TestSession } from './handle.js'
export type { TestSessionOptions } from './options.js'

export async function createTestSession(options: TestSessionOptions = {}): Promise<TestSession> {
  const plan = planSession(options)
  const dirs = await worldFor(plan, options)
  const stack = new DisposerStack()
  const scope: SessionScope = { home: dirs.home, cwd: dirs.cwd, allowedPrograms: options.allowPrograms ?? [] }
  stack.defer(() => releaseSessionDirs(dirs, () => sessionName(scope), !stack.failed))
  // Everything the session starts, from loading its extensions on, runs in its context.
  return runInSession(scope, async () => {
    try {
      const problems = new Problems()
      const recorder = new Recorder(new SessionRecords(), (error) => plan.propagateErrors && problems.report(handlerThrew(error)))
      const activity = new SessionActivity(recorder.records)
      let pi: AgentSession | undefined
      await enterIsolated(scope, dirs, stack, plan.blocks.http !== undefined)
      const cwd = dirs.cwd
      const mocks = openMocks(
        { ...plan, mockTools: options.mockTools, mockUI: options.mockUI },
        { scope, recorder, report: (error) => problems.report(error), abortRun: () => pi?.agent.abort(), defer: (disposer) => stack.defer(disposer), cwd: () => cwd },
      )
      watchLateWork(scope, { problems, extensionPaths: () => pi?.extensionRunner.getExtensionPaths() ?? [], instances: () => recorder.records.instances() })
      scope.refused = (error, stack) => reportRefusal(scope, error, stack)
      // A turn an extension starts outside its handlers while Pi is idle (from a timer, say) is a turn of its
      // own, also when it comes while the harness still waits for Pi to settle after the test's call returned.
      const startTurn = (send: () => void) => {
        const playbook = activity.playbook
        if (playbook === undefined || pi === undefined || pi.isStreaming || activity.handlers.size > 0) send()
        else playbook.afterTurn(send)
      }
      const { session: first, runtime } = await startPi(plan, { cwd, home: dirs.home, agentDir: dirs.agentDir, mocks, activity, recorder, startTurn }, stack)
      pi = first
      const current = () => pi!
      // Before Pi's dispose, which would set its own "ctx is stale" message; /new, /resume and /fork let Pi's
      // runtime end the instances before, so the one alive at the end is the one to mark.
      stack.defer(() => invalidateExtensions(current(), endLateWork(scope)))
      const playbook = (activity.playbook = scriptModel(current, { model: plan.model, recorder, problems, activity, scope }, stack))
      // Each instance of the session (the first, then each /new, /resume, /fork) is scripted, recorded and bound alike.
      let settleCurrent: () => Promise<void> = async () => {}
      const wire = async (session: AgentSession) => {
        pi = session
        replaceModel(session, (context, signal, payload) => playbook.answer(context, signal, payload), (error) => problems.report(error))
        playbook.hooks.stillQueued = watchQueuedMessages(session, () => runningHandlers(activity))
        recorder.attach(session)
        // Pi's TUI draws an extension's renderers only where there is a TUI: not headless (print mode).
        if (!mocks.headless) watchRenders(session, (drawing) => recordDrawing(drawing, recorder.records, plan.propagateErrors ? problems : undefined))
        settleCurrent = trackSettling(session)
        await bindExtensions(session, mocks, recorder)
      }
      await wire(first)
      stack.defer(() => shutDownExtensions(current(), activity))
      stack.defer(() => stopAgent(current(), activity))
      runtime.setRebindSession(wire)
      const firedEvents = await fireSequence(plan.blocks.events?.fire_sequence ?? [], (event, payload) => emitExtensionEvent(current(), event, payload))
      const t = sessionHandle({
        current,
        runtime,
        cwd,
        home: dirs.home,
        scope,
        records: recorder.records,
        playbook,
        problems,
        mocks,
        firedEvents,
        settle: () => settleCurrent(),
        stack,
        activity,
      })
      trackActivity(t, activity)
      rememberDirs(t, dirs)
      linkLateWork(t, scope)
      // Ended first by its own dispose(), else by the end of its test file.
      stack.defer(trackLive(t.dispose))
      return t
    } catch (error) {
      return stack.unwind(error)
    }
  })
}

/**
 * The file's isolation (network guard, HTTP interception, a home for code outside sessions), entered for
 * the session's life, and the session's own home over it; both left when the session ends. A session whose
 * mocks answer HTTP loads the interception now, so that its first request does not wait for the loading; one
 * without HTTP rules leaves it to the first connection, whose request fails or is refused in any case.
 */
async function enterIsolated(scope: SessionScope, dirs: SessionDirs, stack: DisposerStack, answersHttp: boolean): Promise<void> {
  if (answersHttp) await loadHttpInterception()
  stack.defer((await enterIsolation()).leave)
  stack.defer(enterSessionHome(scope, dirs.agentDir))
}

/** Loads the extensions and creates the real AgentSession with them, the mocked built-in tools and the spec's state. */
async function startPi(
  plan: SessionPlan,
  {
    cwd,
    home,
    agentDir,
    mocks,
    activity,
    recorder,
    startTurn,
  }: { cwd: string; home: string; agentDir: string; mocks: SessionMocks; activity: SessionActivity; recorder: Recorder; startTurn: (send: () => void) => void },
  stack: DisposerStack,
) {
  const { options, model, availableModels, blocks } = plan
  const load = () =>
    loadExtensions(options.extensions ?? [], {
      root: plan.root,
      importModule: options.importModule,
      extensionApi: mocks.extensionApi,
      loadTimeout: options.extensionLoadTimeout,
      handlersRunning: activity.handlers,
      listenerThrew: (error) => recorder.extensionError(error),
      startTurn,
    })
  const created = await createPiSession({
    cwd,
    agentDir,
    // Nothing in the agent dir yet: not restarted over, nothing seeded in the home.
    freshAgentDir: plan.restartFrom === undefined && !options.home,
    ...(options.discover ? { discover: { home } } : {}),
    extensions: await load(),
    reloadExtensions: load,
    onReload: () => recorder.records.beginInstance(activity.doing ?? 'an extension'),
    model,
    ...(availableModels.length > 0 ? { availableModels } : {}),
    ...(blocks.model?.thinking_level ? { thinkingLevel: blocks.model.thinking_level } : {}),
    ...(blocks.model?.without_credentials ? { withoutCredentials: blocks.model.without_credentials } : {}),
    seed: (manager) => seedSession(manager, blocks.session, model),
    ...(options.flags ? { flags: options.flags } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
    customToolsFor: (extensionTools) => mocks.builtinTools(cwd, extensionTools),
  })
  const pi = created.session
  // The instance alive at the end: /new, /resume and /fork dispose the ones before, as Pi's runtime does.
  stack.defer(() => created.runtime.session.dispose())
  if (created.loadErrors.length > 0) {
    throw new Error(`Extension failed to load:\n${created.loadErrors.map((e) => `  ${e.path}: ${e.error}`).join('\n')}`)
  }
  mocks.checkToolsExist(created.extensionTools, options.tools)
  if (options.toolExecution) pi.agent.toolExecution = options.toolExecution
  return created
}

/**
 * The playbook answers every model request in place of the model, the agent's and those extensions make
 * themselves; each request is recorded with who asked.
 */
function scriptModel(
  current: () => AgentSession,
  { model, recorder, problems, activity, scope }: { model: Model<string>; recorder: Recorder; problems: Problems; activity: SessionActivity; scope: SessionScope },
  stack: DisposerStack,
): Playbook {
  const playbook = new Playbook({
    model,
    onRequest: ({ step, context, by, extensionPath, payload }) =>
      recorder.modelRequest(
        step,
        context,
        // Handlers that rewrite earlier messages (`context`, `before_provider_request`) make each request its own.
        by === 'agent' && payload === undefined && !current().extensionRunner.hasHandlers('context'),
        { by, ...(extensionPath === undefined ? {} : { extensionPath }) },
        payload,
      ),
    resultFor: (message) => recorder.resultRecord(message.toolCallId, message.toolName, message.content, message.isError, message.details),
    callFor: (toolCallId) => recorder.callRecord(toolCallId),
    ran: (toolCallId) => recorder.ran(toolCallId),
    onToolCall: (toolCallId, step) => recorder.callAsked(toolCallId, step),
    abort: () => pressEscape(current()),
    report: (error) => problems.report(error),
    // Set for each instance of the session when it is wired (see createTestSession).
    stillQueued: () => [],
    timeline: () => timelineText(recorder.records, plainLine),
  })
  stack.defer(
    answerExtensionModelCalls(scope, ({ model: asked, context, stack: caller, signal }) => {
      const paths = current().extensionRunner.getExtensionPaths()
      // Pi's own summaries take agent steps, as on 1.x, where they go through the agent's stream function.
      if (askedByPi(caller, paths)) return playbook.answer(context, signal)
      return playbook.answerExtension({ context, extensionPath: extensionOnStack(caller, paths), signal }, asked)
    }),
  )
  return playbook
}

/** A drawing recorded; a renderer that threw or drew too wide fails the test, as a handler's crash does. */
function recordDrawing(drawing: Drawing, records: SessionRecords, problems: Problems | undefined): void {
  records.renders.push(drawing)
  if (drawing.error) problems?.report(new Error(`Extension ${drawing.extensionPath}: ${drawing.error}`))
}

/** What extension handlers are running now, for the message that names who queued a message. */
const runningHandlers = (activity: SessionActivity) =>
  [...activity.handlers].map(({ event, extensionPath }) => `the "${event}" handler of ${extensionPath}`).join(', ') || undefined

/**
 * Binds the mock UI and starts the extensions (`session_start`); from then on the session ends as Pi's
 * does: abort, `session_shutdown`, dispose. A handler's crash is recorded.
 */
async function bindExtensions(pi: AgentSession, mocks: SessionMocks, recorder: Recorder) {
  // A widget factory renders when it is set, from session_start on: Pi's TUI modules must be loaded by then.
  if (!mocks.headless) await preloadTui()
  await bindSession(pi, { ui: mocks.ui, headless: mocks.headless, onError: (error) => recorder.extensionError(error) })
}

/** How long dispose() waits for the agent to stop after abort() before it cleans up anyway. */
const STOP_GRACE_MS = 1000
/** How long dispose() waits for the `session_shutdown` handlers, as long as an extension's load may take. */
const SHUTDOWN_GRACE_MS = 3000

/**
 * Aborts the agent and waits, bounded, until it is idle: a tool that never settles and ignores its abort
 * signal must not keep the session's temp dirs, or the test's end, waiting forever. It is named instead.
 */
async function stopAgent(pi: AgentSession, activity: SessionActivity): Promise<void> {
  if (await within(pi.abort(), STOP_GRACE_MS)) return
  throw new Error(
    `dispose(): the agent did not stop within ${STOP_GRACE_MS} ms of abort(): ${stillRunning(activity)} was still running and ignored its abort signal. ` +
      "The session's temp dirs are removed all the same; what was running is abandoned.",
  )
}

/** Fires `session_shutdown` and waits for its handlers, bounded as the agent's stop is, and for the same reason. */
async function shutDownExtensions(pi: AgentSession, activity: SessionActivity): Promise<void> {
  if (await within(emitShutdown(pi), SHUTDOWN_GRACE_MS)) return
  throw new Error(
    `dispose(): session_shutdown did not finish within ${SHUTDOWN_GRACE_MS} ms: ${stillRunning(activity)} had not returned. ` +
      "The session's temp dirs are removed all the same; the handler is abandoned.",
  )
}

function stillRunning(activity: SessionActivity): string {
  const running = activity.unfinished()
  return running.length > 0 ? running.join(', ') : 'no tool, extension handler or model request (Pi itself)'
}
