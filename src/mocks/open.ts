// The edges of one session, mocked: pi.exec, HTTP, tools, dialogs and the extension API answer from the
// session's mock blocks and options, and every call is recorded.
import { BUILTIN_TOOL_NAMES, builtinToolDefinition } from '../pi/index.js'
import type { ExtensionAPI, ExtensionUIContext, ToolDefinition } from '../pi/types.js'
import type { Recorder } from '../records/recorder.js'
import { messageOf } from '../shared/errors.js'
import { replacedInstance, type SessionScope } from '../shared/session-context.js'
import { createExecMock } from './exec.js'
import { overrideApi } from './extension-api.js'
import { createHttpMock } from './http.js'
import { answerHttp } from './http-routing.js'
import type { PendingRule, UnhandledMode } from './rules.js'
import type { MockBlocks } from './spec/resolve.js'
import { instrumentTool, invocationMocks, type MockToolHandler, type ToolInstrumentation } from './tools.js'
import { createRealExec } from './real-exec.js'
import { createMockUI, uiDefaults, uiOptions, type EditorBuffer, type MockUIOptions } from './ui.js'

/** What the mocks are made from: the mock spec's blocks and the session's own mock options. */
export interface MockSettings {
  blocks: MockBlocks
  mockTools?: Record<string, MockToolHandler> | undefined
  mockUI?: MockUIOptions | false | undefined
  unhandled: UnhandledMode
  /** A real tool's throw fails the run. */
  propagateErrors: boolean
}

export interface MockHooks {
  /** The session the mocks answer for: HTTP requests made in its context come to its rules. */
  scope: SessionScope
  recorder: Recorder
  /** A problem that fails the test at the next run(), emit() or verify(). */
  report(error: Error): void
  /** Stops the run in progress. */
  abortRun(): void
  /** Registers a clean-up with the session's disposer stack. */
  defer(disposer: () => unknown): void
  /** The session's working directory, where a command run for real starts. */
  cwd(): string
}

export interface SessionMocks {
  /** The API an extension's factory gets: exec answered by rules, the spec's overrides, its tools instrumented. */
  extensionApi(api: ExtensionAPI): ExtensionAPI
  /** Pi's own built-in tools for `cwd`, instrumented, except those an extension registered itself. */
  builtinTools(cwd: string, extensionTools: ReadonlySet<string>): ToolDefinition[]
  /** Throws when a tool mock names a tool that neither Pi nor an extension has. */
  /** Every tool `mockTools` and the `tools` allowlist name is a built-in or an extension's. */
  checkToolsExist(extensionTools: ReadonlySet<string>, allowed: readonly string[] | undefined): void
  ui: ExtensionUIContext
  /** The editor's text behind `ui`, for what Pi's interactive mode puts there itself (a forked user message). */
  editor: EditorBuffer
  /** `mockUI: false`: extensions see `ctx.hasUI === false`. */
  headless: boolean
  /** Rules with a `times` limit that have not answered that often yet. */
  pending(): PendingRule[]
  /** The tools a mock answers (mockTools and the spec's tool invocations). */
  mockedTools(): string[]
  /** A mocked tool's answer to a call made elsewhere (a `pi` child), with the semantics of an instrumented tool. */
  answerTool(name: string, toolCallId: string, params: unknown, signal: AbortSignal | undefined): Promise<{ content: unknown; details?: unknown }>
}

/** How a dialog of a replaced instance's code is told (late-work.ts names the instance), while such code runs. */
function replacedWork(scope: SessionScope): ((what: string, stack: string | undefined) => Error) | undefined {
  const bornIn = replacedInstance(scope)
  const report = scope.replaced
  return bornIn === undefined || report === undefined ? undefined : (what, stack) => report(what, bornIn, undefined, stack)
}

const warn = (message: string) => console.warn(`[vitest-environment-pi] ${message}`)

/**
 * HTTP is intercepted process-wide (fetch has one global dispatcher): a request is answered by the rules
 * of the session whose context made it (see routeHttp).
 */
export function openMocks(settings: MockSettings, hooks: MockHooks): SessionMocks {
  const { blocks, unhandled } = settings
  const { records } = hooks.recorder
  const realExec = createRealExec(hooks.cwd)
  hooks.defer(() => realExec.killAll())
  const exec = createExecMock(blocks.exec ?? {}, {
    unhandled,
    realExec: realExec.exec,
    onUnhandled: hooks.report,
    record: (call) => void records.exec.push(call),
    warn,
  })
  const http = createHttpMock(blocks.http ?? {}, { unhandled, onUnhandled: hooks.report, record: (call) => void records.http.push(call), warn })
  hooks.defer(answerHttp(hooks.scope, (request) => http.handle(request)))

  const invocations = invocationMocks(blocks.tools)
  const mockTools = { ...invocations.mocks, ...settings.mockTools }
  const instrumentation: ToolInstrumentation = {
    mockFor: (name) => (Object.hasOwn(mockTools, name) ? mockTools[name] : undefined),
    onRan: (toolCallId) => hooks.recorder.callRan(toolCallId),
    onMocked: (toolCallId) => hooks.recorder.callMocked(toolCallId),
    // A call the test's mocks cannot answer: it fails the run whatever propagateErrors says.
    onUnanswered: (error) => hooks.report(error),
    onThrow: (toolName, toolCallId, error) => {
      if (!settings.propagateErrors) return
      hooks.report(toolThrew(toolName, hooks.recorder.stepOf(toolCallId), toolCallId, error))
      hooks.abortRun()
    },
    // A scripting mistake, not the tool's behaviour: it fails the run whatever propagateErrors says.
    onMalformedAnswer: (toolName, toolCallId, problem) => {
      hooks.report(malformedAnswer(toolName, hooks.recorder.stepOf(toolCallId), toolCallId, problem))
      hooks.abortRun()
    },
  }

  const capture = blocks.ui?.capture ?? true
  const editor: EditorBuffer = { text: '' }
  const ui = createMockUI(
    settings.mockUI === false ? false : { ...uiOptions(blocks.ui), ...settings.mockUI },
    { editor, record: (call) => void (capture && records.addUICall(call)), widget: (widget) => void (capture && records.widgets.push(widget)), problem: hooks.report, ended: () => hooks.scope.ended, replaced: () => replacedWork(hooks.scope) },
    uiDefaults(blocks.ui),
  )

  return {
    extensionApi(api) {
      const mocked = overrideApi(api, blocks)
      return {
        ...mocked,
        appendEntry: (customType, data) => {
          mocked.appendEntry(customType, data)
          records.entries.push({ customType, data })
        },
        exec: (command, args, execOptions) => exec.exec(command, args, execOptions),
        registerTool: (definition) => api.registerTool(instrumentTool(definition as ToolDefinition, instrumentation)),
      }
    },
    builtinTools: (cwd, extensionTools) =>
      BUILTIN_TOOL_NAMES.filter((name) => !extensionTools.has(name)).map((name) => instrumentTool(builtinToolDefinition(name, cwd), instrumentation)),
    checkToolsExist(extensionTools, allowed) {
      const known = new Set<string>([...BUILTIN_TOOL_NAMES, ...extensionTools])
      for (const [option, names] of [['mockTools', Object.keys(mockTools)], ['tools', allowed ?? []]] as const) {
        const unknown = names.filter((name) => !known.has(name))
        if (unknown.length > 0) {
          throw new Error(`${option} names no tool: ${unknown.map((n) => `"${n}"`).join(', ')}. Known tools: ${[...known].sort().join(', ')}`)
        }
      }
    },
    ui,
    editor,
    headless: settings.mockUI === false,
    pending: () => [...exec.pending(), ...http.pending(), ...invocations.pending()],
    mockedTools: () => Object.keys(mockTools),
    answerTool: (name, toolCallId, params, signal) => {
      const unmocked = { name, execute: () => Promise.reject(new Error(`Tool "${name}" has no mock in this session`)) } as unknown as ToolDefinition
      return instrumentTool(unmocked, instrumentation).execute(toolCallId, params as never, signal, undefined, undefined as never)
    },
  }
}

function toolThrew(toolName: string, step: number, toolCallId: string, error: unknown): Error {
  return new Error(
    [
      `Tool "${toolName}" threw at playbook step ${step} (toolCallId ${toolCallId}): ${messageOf(error)}`,
      "The tool's own execute() threw. With propagateErrors: true (the default) that fails the run;",
      'to let the extension see it as an error result instead, pass createTestSession({ propagateErrors: false }).',
    ].join('\n'),
    { cause: error },
  )
}

function malformedAnswer(toolName: string, step: number, toolCallId: string, problem: string): Error {
  return new Error(
    [
      `Mock for tool "${toolName}" at playbook step ${step} (toolCallId ${toolCallId}) ${problem}`,
      'A mock answer that is not a result is a mistake in the test, so it fails the run whatever propagateErrors says.',
    ].join('\n'),
  )
}
