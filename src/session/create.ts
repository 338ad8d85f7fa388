// createTestSession: a real Pi AgentSession whose model is a playbook and whose edges are mocks.
import { mkdtempSync, rmdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { enterIsolation } from '../isolation/isolation.js'
import { createIoMocks } from '../mocks/io.js'
import type { PendingRule } from '../mocks/rules.js'
import { instrumentTool, type MockToolHandler } from '../mocks/tools.js'
import { createMockUI, type MockUIOptions } from '../mocks/ui.js'
import { moduleLoader, type ModuleLoader } from './module-loader.js'
import {
  bindSession,
  BUILTIN_TOOL_NAMES,
  builtinToolDefinition,
  createPiSession,
  emitExtensionEvent,
  replaceModel,
  shutdownSession,
  trackSettling,
  watchToolCallDecisions,
  type AgentSession,
  type ExtensionAPI,
  type ExtensionFactory,
  type ToolDefinition,
} from '../pi/index.js'
import { extensionIdFor } from '../mocks/spec/extension-id.js'
import type { MockSpec } from '../mocks/spec/types.js'
import {
  fireSequence,
  invocationMocks,
  modelFor,
  overrideApi,
  resolveMocks,
  seedSession,
  uiOptions,
  type FiredEvent,
  type MockBlocks,
} from '../mocks/world.js'
import { checkSessionOptions, type TestSessionOptions } from './options.js'
import { Playbook } from '../model/playbook.js'
import { when, type Action, type Turn } from '../model/script.js'
import { messagesOf, RequestLog, type RequestMessages } from '../records/request-log.js'
import { SessionRecords, textOf, type ModelRequestRecord, type ToolCallRecord, type ToolResultRecord } from '../records/records.js'

export interface TestSession {
  /** The real Pi AgentSession. */
  readonly session: AgentSession
  readonly cwd: string
  readonly events: SessionRecords
  readonly playbook: { readonly consumed: number; readonly remaining: number }
  /** Sends each turn's prompt and waits until Pi is idle; throws when the script and Pi disagreed. */
  run(...turns: Turn[]): Promise<void>
  /** Runs a registered slash command (with the model actions it leads to) and waits until Pi is idle. */
  command(name: string, args?: string, actions?: readonly Action[]): Promise<void>
  /** Fires an extension event through Pi's runner and returns what the handlers returned. */
  emit(eventName: string, payload?: Record<string, unknown>): Promise<unknown>
  /** Throws what went wrong outside run(), command() and emit(): an unhandled call, a strict dialog. */
  verify(): void
  /** Exec, HTTP and tool rules with a `times` limit that have not answered that often yet. */
  pendingMocks(): PendingRule[]
  /** The events the mock spec fired at start, with what the handlers returned. */
  readonly firedEvents: readonly FiredEvent[]
  /** Fires `session_shutdown` and removes temp dirs; safe to call twice. */
  dispose(): Promise<void>
}

export async function createTestSession(options: TestSessionOptions = {}): Promise<TestSession> {
  checkSessionOptions(options)
  const propagateErrors = options.propagateErrors ?? true
  const root = options.root ?? process.cwd()
  const extensionIds = () => (options.extensions ?? []).flatMap((e) => (typeof e === 'string' ? [extensionIdFor(resolve(root, e))] : []))
  const blocks = resolveMocks(options.mockSpec, options.mocks, { root, extensionIds })
  const { model, available } = modelFor(blocks.model)
  const records = new SessionRecords()
  const problems: Error[] = []
  const io = createIoMocks(blocks, { unhandled: options.unhandled ?? 'error', records, onProblem: (error) => void problems.push(error) })
  const { isolation, leave } = enterIsolation()
  const ownCwd = options.cwd === undefined
  const cwd = ownCwd ? mkdtempSync(join(tmpdir(), 'pi-cwd-')) : resolve(options.cwd!)
  const cleanup = () => {
    io.release()
    if (ownCwd) removeDir(cwd)
    leave()
  }

  const mocked = new Set<string>()
  const stepOfCall = new Map<string, number>()
  const toolRules = invocationMocks(blocks.tools, (error) => void problems.push(error))
  const mockTools = { ...toolRules.mocks, ...options.mockTools }
  let session: AgentSession | undefined

  const instrumentation = {
    mockFor: (name: string) => (Object.hasOwn(mockTools, name) ? mockTools[name] : undefined),
    onMocked: (toolCallId: string) => void mocked.add(toolCallId),
    onThrow: (toolName: string, toolCallId: string, error: unknown) => {
      if (!propagateErrors) return
      const step = stepOfCall.get(toolCallId) ?? 0
      problems.push(
        new Error(
          [
            `Tool "${toolName}" threw at playbook step ${step} (toolCallId ${toolCallId}): ${error instanceof Error ? error.message : String(error)}`,
            "The tool's own execute() threw. With propagateErrors: true (the default) that fails the run;",
            'to let the extension see it as an error result instead, pass createTestSession({ propagateErrors: false }).',
          ].join('\n'),
          { cause: error },
        ),
      )
      session?.agent.abort()
    },
  }

  const instrumentApi = (api: ExtensionAPI): ExtensionAPI => ({
    ...overrideApi(api, blocks),
    exec: io.execFor(api),
    registerTool: (definition) => {
      api.registerTool(instrumentTool(definition as ToolDefinition, instrumentation))
    },
  })

  try {
    const extensions = await loadExtensions(options, root, instrumentApi)
    const created = await createPiSession({
      cwd,
      agentDir: isolation.agentDir,
      extensions,
      model,
      ...(available.length > 0 ? { availableModels: available } : {}),
      ...(blocks.model?.thinking_level ? { thinkingLevel: blocks.model.thinking_level } : {}),
      seed: (manager) => seedSession(manager, blocks.session, model),
      ...(options.flags ? { flags: options.flags } : {}),
      ...(options.tools ? { tools: options.tools } : {}),
      ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
      customToolsFor: (extensionTools) =>
        BUILTIN_TOOL_NAMES.filter((name) => !extensionTools.has(name)).map((name) =>
          instrumentTool(builtinToolDefinition(name, cwd), instrumentation),
        ),
    })
    if (created.loadErrors.length > 0) {
      throw new Error(`Extension failed to load:\n${created.loadErrors.map((e) => `  ${e.path}: ${e.error}`).join('\n')}`)
    }
    session = created.session
    checkMockedToolsExist(mockTools, created.extensionTools)
  } catch (error) {
    cleanup()
    throw error
  }
  const pi = session
  if (options.toolExecution) pi.agent.toolExecution = options.toolExecution

  const requestLog = new RequestLog()
  const playbook = new Playbook({
    model,
    onRequest: ({ step, context }) => {
      const chunk = requestLog.record(context.messages, !pi.extensionRunner.hasHandlers('context'))
      records.modelRequests.push(requestRecord(step, context.systemPrompt ?? '', chunk, (context.tools ?? []).map((tool) => tool.name)))
    },
    resultFor: (message) => resultRecord(message.toolCallId, message.toolName, message.content, message.isError, message.details),
    onToolCall: (toolCallId, step) => void stepOfCall.set(toolCallId, step),
  })
  replaceModel(pi, (context, signal) => playbook.answer(context, signal))

  const resultRecord = (toolCallId: string, toolName: string, content: ToolResultRecord['content'], isError: boolean, details: unknown): ToolResultRecord => ({
    step: stepOfCall.get(toolCallId) ?? 0,
    toolCallId,
    toolName,
    text: textOf(content),
    content,
    isError,
    details,
    mocked: mocked.has(toolCallId),
  })

  const callRecords = new Map<string, ToolCallRecord>()
  const decisions = new Map<string, { blocked: boolean; reason?: string }>()
  watchToolCallDecisions(pi, ({ toolCallId, blocked, reason }) => {
    const decision = blocked ? { blocked, reason: reason! } : { blocked }
    decisions.set(toolCallId, decision)
    const call = callRecords.get(toolCallId)
    if (call) applyDecision(call, decision)
  })
  pi.subscribe((event) => {
    records.all.push(event)
    // The conversation; 1.x also ends `system` messages (prompt and tool changes), which requests record.
    if (event.type === 'message_end') {
      if ((event.message as { role: string }).role !== 'system') records.messages.push(event.message)
    } else if (event.type === 'tool_execution_start') {
      const call: ToolCallRecord = {
        step: stepOfCall.get(event.toolCallId) ?? 0,
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        input: event.args as Record<string, unknown>,
        blocked: false,
      }
      const decision = decisions.get(event.toolCallId)
      if (decision) applyDecision(call, decision)
      callRecords.set(event.toolCallId, call)
      records.toolCalls.push(call)
    } else if (event.type === 'tool_execution_end') {
      const result = event.result as { content: ToolResultRecord['content']; details: unknown }
      records.toolResults.push(resultRecord(event.toolCallId, event.toolName, result.content ?? [], event.isError, result.details))
    }
  })
  const settle = trackSettling(pi)

  const capture = blocks.ui?.capture ?? true
  const ui = createMockUI(options.mockUI === false ? false : { ...uiOptions(blocks.ui), ...options.mockUI }, {
    record: (call) => void (capture && records.ui.push(call)),
    problem: (error) => void problems.push(error),
  })
  try {
    await bindSession(pi, {
      ui,
      headless: options.mockUI === false,
      onError: (error) => {
        records.extensionErrors.push(error)
        if (propagateErrors) {
          problems.push(new Error(`Extension ${error.extensionPath} threw in its "${error.event}" handler: ${error.error}`))
        }
      },
    })
  } catch (error) {
    pi.dispose()
    cleanup()
    throw error
  }

  let firedEvents: FiredEvent[] = []
  try {
    firedEvents = await fireSequence(blocks.events?.fire_sequence ?? [], (event, payload) => emitExtensionEvent(pi, event, payload))
  } catch (error) {
    await shutdownSession(pi)
    cleanup()
    throw error
  }

  const failIfProblems = () => {
    const found = problems.splice(0)
    if (found.length === 1) throw found[0]
    if (found.length > 1) throw new Error(found.map((e) => e.message).join('\n\n'), { cause: found })
  }

  let disposed = false
  const ensureOpen = (what: string) => {
    if (disposed) throw new Error(`${what} after dispose(): this test session is closed`)
  }

  // The first cause wins: Pi's own rejection, then a problem the mocks saw, then the playbook's diagnostic.
  const runTurn = async (turn: Turn) => {
    playbook.begin(turn)
    let failure: unknown
    try {
      await pi.prompt(turn.prompt)
      await settle()
    } catch (error) {
      failure = error
    }
    try {
      failIfProblems()
    } catch (problem) {
      failure ??= problem
    }
    try {
      playbook.end()
    } catch (diagnostic) {
      failure ??= diagnostic
    }
    if (failure !== undefined) throw failure
  }

  const t: TestSession = {
    session: pi,
    cwd,
    events: records,
    playbook: {
      get consumed() {
        return playbook.consumed
      },
      get remaining() {
        return playbook.remaining
      },
    },
    async run(...turns) {
      ensureOpen('run()')
      for (const turn of turns) await runTurn(turn)
    },
    async command(name, args, actions = []) {
      ensureOpen('command()')
      const command = pi.extensionRunner.getCommand(name)
      if (!command) {
        const known = pi.extensionRunner.getRegisteredCommands().map((c) => `/${c.invocationName}`)
        throw new Error(`No command "/${name}" is registered. Registered commands: ${known.join(', ') || 'none'}`)
      }
      await runTurn(when(args ? `/${name} ${args}` : `/${name}`, actions))
    },
    async emit(eventName, payload = {}) {
      ensureOpen('emit()')
      const result = await emitExtensionEvent(pi, eventName, payload)
      await settle()
      failIfProblems()
      return result
    },
    firedEvents,
    verify: failIfProblems,
    pendingMocks: () => [...io.pending(), ...toolRules.pending()],
    async dispose() {
      if (disposed) return
      disposed = true
      try {
        await pi.abort()
        await shutdownSession(pi)
      } finally {
        cleanup()
      }
    },
  }
  return t
}

// Outside createTestSession, so that the getter closes over the chunk alone and never over a request's full context.
function requestRecord(step: number, systemPrompt: string, chunk: RequestMessages, tools: string[]): ModelRequestRecord {
  return {
    step,
    systemPrompt,
    get messages() {
      return messagesOf(chunk)
    },
    tools,
  }
}

/** A session's cwd is usually still empty: one rmdir then, the recursive removal otherwise. */
function removeDir(dir: string): void {
  try {
    rmdirSync(dir)
  } catch {
    rmSync(dir, { recursive: true, force: true })
  }
}

function applyDecision(call: ToolCallRecord, decision: { blocked: boolean; reason?: string }) {
  call.blocked = decision.blocked
  if (decision.reason !== undefined) call.blockReason = decision.reason
}

function checkMockedToolsExist(mockTools: Record<string, unknown>, extensionTools: ReadonlySet<string>) {
  const known = new Set<string>([...BUILTIN_TOOL_NAMES, ...extensionTools])
  const unknown = Object.keys(mockTools).filter((name) => !known.has(name))
  if (unknown.length > 0) {
    throw new Error(`mockTools names no tool: ${unknown.map((n) => `"${n}"`).join(', ')}. Known tools: ${[...known].sort().join(', ')}`)
  }
}

async function loadExtensions(options: TestSessionOptions, root: string, instrumentApi: (api: ExtensionAPI) => ExtensionAPI) {
  const load = moduleLoader(options.importModule)
  const loaded: { factory: ExtensionFactory; path: string }[] = []
  for (const [index, entry] of (options.extensions ?? []).entries()) {
    if (typeof entry === 'function') {
      loaded.push({ factory: withPath(entry, `<inline:${index + 1}>`, instrumentApi), path: `<inline:${index + 1}>` })
      continue
    }
    if (typeof entry !== 'string') {
      throw new TypeError(`extensions[${index}] must be a path or a factory function, got ${typeof entry}`)
    }
    const path = resolve(root, entry)
    let module: Record<string, unknown>
    try {
      module = await load(path)
    } catch (error) {
      throw new Error(`Extension ${path} failed to load: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    }
    if (typeof module.default !== 'function') {
      const found = module.default === undefined ? 'no default export' : `a default export of type ${typeof module.default}`
      throw new Error(`Extension ${path} must export a factory function as default export (pi) => void; found ${found}`)
    }
    loaded.push({ factory: withPath(module.default as ExtensionFactory, path, instrumentApi), path })
  }
  return loaded
}

function withPath(factory: ExtensionFactory, path: string, instrumentApi: (api: ExtensionAPI) => ExtensionAPI): ExtensionFactory {
  return async (api) => {
    try {
      await factory(instrumentApi(api))
    } catch (error) {
      throw new Error(`its factory threw: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    }
  }
}
export type { TestSessionOptions } from './options.js'
