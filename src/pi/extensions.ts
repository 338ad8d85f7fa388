// The session's extension runner: the UI it is bound to (with `session_start`), the events fired through
// it as Pi fires them, and `session_shutdown` at the end.
import type { AgentSession, ExtensionError, ExtensionUIContext } from '@mariozechner/pi-coding-agent'
import { adapter } from './running-line.js'

export interface UIBinding {
  ui: ExtensionUIContext
  /** Headless: extensions see `ctx.hasUI === false` while every UI call is still recorded. */
  headless: boolean
  onError: (error: ExtensionError) => void
}

/** Binds the UI and fires `session_start` and `resources_discover`, as Pi's modes do at startup. */
export async function bindSession(session: AgentSession, binding: UIBinding): Promise<void> {
  if (binding.headless) keepHeadless(session)
  await adapter.bindExtensions(session, binding.ui, binding.onError, binding.headless)
}

// Pi derives hasUI from "is a UI bound"; the runner is rebuilt on reload, so the override follows it.
function keepHeadless(session: AgentSession): void {
  const apply = () => {
    session.extensionRunner.hasUI = () => false
  }
  apply()
  const reload = session.reload.bind(session)
  session.reload = async () => {
    await reload()
    apply()
  }
}

/** Fires `session_shutdown` as Pi does when it quits (Pi's dispose does not fire it). */
export async function emitShutdown(session: AgentSession): Promise<void> {
  await session.extensionRunner.emit({ type: 'session_shutdown', reason: 'quit' })
}

/**
 * Makes every later use of the extensions' pi or ctx throw `message` instead of Pi's "ctx is stale after
 * session replacement or reload", which Pi's dispose() would set and which names nothing here.
 */
export function invalidateExtensions(session: AgentSession, message: string): void {
  session.extensionRunner.invalidate(message)
}

/** Fires one extension event through Pi's runner and returns what the handlers returned. */
export async function emitExtensionEvent(session: AgentSession, type: string, payload: Record<string, unknown>): Promise<unknown> {
  const runner = session.extensionRunner
  const event = { ...payload, type } as never
  switch (type) {
    case 'tool_call':
      return runner.emitToolCall(event)
    case 'tool_result':
      return runner.emitToolResult(event)
    case 'user_bash':
      return runner.emitUserBash(event)
    case 'message_end':
      return runner.emitMessageEnd(event)
    case 'context':
      return runner.emitContext((payload.messages ?? []) as never)
    case 'before_provider_request':
      return runner.emitBeforeProviderRequest(payload.payload)
    case 'before_agent_start':
      return adapter.emitBeforeAgentStart(
        runner,
        {
          prompt: String(payload.prompt ?? ''),
          images: payload.images,
          ...(payload.systemPrompt === undefined ? {} : { systemPrompt: String(payload.systemPrompt) }),
          ...(payload.systemPromptOptions === undefined ? {} : { systemPromptOptions: payload.systemPromptOptions }),
        },
        session,
      )
    case 'resources_discover':
      return runner.emitResourcesDiscover(String(payload.cwd ?? ''), (payload.reason ?? 'startup') as never)
    case 'input':
      return runner.emitInput(String(payload.text ?? ''), payload.images as never, (payload.source ?? 'interactive') as never)
    default:
      return runner.emit(event)
  }
}
