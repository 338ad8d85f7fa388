// The harness inside a `pi --mode rpc` child: an extension Pi loads first (`-e`), as any other. It registers
// the scripted model as the session's provider, answers mocked tools' `execute`, and says which tool calls
// passed their hooks, each by asking the harness over Node's IPC channel. Of the harness it imports only the
// protocol and the message stream. Pi's modules come by path from the running line (settings().piModules), not
// by name: Node loads this file itself (it resolves), and a name would resolve from the harness's own
// node_modules, where another line may be installed; on 1.x that loaded 0.73's whole coding agent into the child.
import type { AssistantMessage, AssistantMessageEventStream, Model } from '@mariozechner/pi-ai'
import type { ExtensionAPI, ToolDefinition } from '@mariozechner/pi-coding-agent'
import { pathToFileURL } from 'node:url'
// Plain modules with no import of Pi or the harness at run time: the child loads them as they are.
import { assistantMessage, writeMessage } from '../model/stream.js'
import { CHILD_SETTINGS_ENV, INSTANCE_STATUS_KEY, type ChildMessage, type ChildRequest, type ChildSettings, type HarnessAnswer } from './protocol.js'

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

// Pi imports this file again for each instance of the session (/new, /resume, /fork): the asks in flight, their
// ids and the one IPC listener are the child's, shared by every copy, so that no two asks share an id.
const shared = ((globalThis as { [key: symbol]: unknown })[Symbol.for('vitest-environment-pi.child')] ??= {
  pending: new Map(),
  nextId: 0,
  listening: false,
}) as { pending: Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>; nextId: number; listening: boolean }
const { pending } = shared

function send(message: ChildMessage): void {
  if (!process.send) throw new Error('vitest-environment-pi: the harness extension runs only in a child started by createTestSession({ process: true })')
  process.send(message)
}

/** Asks the harness and waits for its answer. */
function ask(request: DistributiveOmit<ChildRequest, 'id'>): Promise<unknown> {
  const id = ++shared.nextId
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject })
    send({ ...request, id } as ChildRequest)
  })
}

function listen(): void {
  if (shared.listening) return
  shared.listening = true
  process.on('message', (message: HarnessAnswer) => {
    if (message?.kind !== 'answer') return
    const waiting = pending.get(message.id)
    if (!waiting) return
    pending.delete(message.id)
    if (message.error !== undefined) waiting.reject(new Error(message.error))
    else waiting.resolve(message.value)
  })
  // The IPC channel must not keep Pi alive once its stdin closes.
  process.channel?.unref()
}

/** The playbook's answer, streamed as a provider streams (start, deltas, done or error). */
function scriptedStream(context: unknown, signal: AbortSignal | undefined): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream()
  const id = ++shared.nextId
  const onAbort = () => send({ kind: 'abort-model', id })
  signal?.addEventListener('abort', onAbort, { once: true })
  new Promise<unknown>((resolve, reject) => {
    pending.set(id, { resolve, reject })
    send({ kind: 'model', id, context })
  })
    .then(
      (message) => writeMessage(stream, message as AssistantMessage),
      (error: Error) => writeMessage(stream, assistantMessage(settings().model as Model<string>, [], 'error', error.message)),
    )
    .finally(() => signal?.removeEventListener('abort', onAbort))
  return stream
}

let cached: ChildSettings | undefined
function settings(): ChildSettings {
  const raw = process.env[CHILD_SETTINGS_ENV]
  if (raw === undefined) throw new Error(`vitest-environment-pi: ${CHILD_SETTINGS_ENV} is not set; this extension runs only in a child the harness starts`)
  return (cached ??= JSON.parse(raw) as ChildSettings)
}

const importPi = <T>(file: string): Promise<T> => import(pathToFileURL(file).href) as Promise<T>
const { createAssistantMessageEventStream } = await importPi<typeof import('@mariozechner/pi-ai')>(settings().piModules.ai)

// Pi's own definitions of the built-in tools, by name; the coding agent is imported only when one is mocked.
const BUILTIN_FACTORIES = {
  bash: 'createBashToolDefinition',
  read: 'createReadToolDefinition',
  edit: 'createEditToolDefinition',
  write: 'createWriteToolDefinition',
  grep: 'createGrepToolDefinition',
  find: 'createFindToolDefinition',
  ls: 'createLsToolDefinition',
} as const
const isBuiltin = (name: string): name is keyof typeof BUILTIN_FACTORIES => Object.hasOwn(BUILTIN_FACTORIES, name)

/** `definition` with its `execute` answered by the harness's mock. */
function mocked(definition: Pick<ToolDefinition, 'name' | 'label' | 'description' | 'parameters'> & Partial<ToolDefinition>): ToolDefinition {
  return {
    ...definition,
    label: definition.label ?? definition.name,
    execute: async (toolCallId, params) => (await ask({ kind: 'tool', toolName: definition.name, toolCallId, params })) as never,
  } as ToolDefinition
}

export default async function harness(pi: ExtensionAPI): Promise<void> {
  listen()
  const { model, mockedTools, piModules } = settings()
  pi.registerProvider(model.provider, {
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'scripted',
    api: model.api as never,
    models: [{ ...model, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }] as never,
    streamSimple: (_model, context, options) => scriptedStream(context, options?.signal),
  })
  // Built-in tools are replaced at load, by Pi's own definitions; an extension's tool once every extension has
  // registered its own (this extension loads first, so its registration wins).
  const builtins = mockedTools.filter(isBuiltin)
  if (builtins.length > 0) {
    const codingAgent = await importPi<Record<string, (cwd: string) => ToolDefinition>>(piModules.codingAgent)
    for (const name of builtins) pi.registerTool(mocked(codingAgent[BUILTIN_FACTORIES[name]]!(process.cwd())))
  }
  // Loaded first, this handler runs before any other extension's: what follows belongs to the new instance. Once
  // per instance (this factory runs once for each): Pi 0.73's RPC mode binds a new instance twice, firing
  // session_start twice.
  let marked = false
  pi.on('session_start', (event, ctx) => {
    if (event.reason !== 'startup' && !marked) ctx.ui.setStatus(INSTANCE_STATUS_KEY, event.reason)
    marked = true
    for (const tool of pi.getAllTools()) {
      if (mockedTools.includes(tool.name) && !isBuiltin(tool.name)) pi.registerTool(mocked(tool as never))
    }
  })
  // Pi emits tool_execution_start before a call's hooks: the harness learns from these which calls passed.
  pi.on('tool_call', async (event) => void (await ask({ kind: 'tool-called', toolCallId: event.toolCallId })))
  pi.on('tool_result', async (event) => void (await ask({ kind: 'tool-ran', toolCallId: event.toolCallId })))
}
