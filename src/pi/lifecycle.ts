// Pi's life around a session, through Pi's own code: the session runtime replaces the AgentSession on
// /new, /resume and /fork (session_before_switch / session_before_fork may cancel; the old instance gets
// session_shutdown; the factories run again; session_start says why), and the session itself navigates
// its tree and reloads its extensions.
import type { AgentSession, AgentSessionRuntime } from '@mariozechner/pi-coding-agent'
import type { ForkMessage, LifecycleResult } from './types.js'

/** /new: a fresh session in the same cwd, as Pi's runtime makes it. */
export function startNewSession(runtime: AgentSessionRuntime): Promise<LifecycleResult> {
  return runtime.newSession()
}

/** /resume: the session in `path` (a session file), opened by Pi. */
export function resumeSession(runtime: AgentSessionRuntime, path: string): Promise<LifecycleResult> {
  return runtime.switchSession(path)
}

/** /fork at an entry: `before` a user message (Pi's default, the message goes back to the editor) or `at` any entry. */
export async function forkSession(runtime: AgentSessionRuntime, entryId: string, position: 'before' | 'at'): Promise<LifecycleResult> {
  const { cancelled, selectedText } = await runtime.fork(entryId, { position })
  return selectedText === undefined ? { cancelled } : { cancelled, selectedText }
}

/** The user messages /fork offers (Pi's fork selector): each entry id with its text, oldest first. */
export function forkMessages(session: AgentSession): ForkMessage[] {
  return session.getUserMessagesForForking()
}

/** /tree: moves the session's leaf to `entryId` in the same file, without a summary. */
export async function navigateTree(session: AgentSession, entryId: string): Promise<LifecycleResult> {
  const { cancelled, editorText } = await session.navigateTree(entryId, { summarize: false })
  return editorText === undefined ? { cancelled } : { cancelled, editorText }
}

/** /reload: session_shutdown, the resources loaded again (every factory runs), session_start with reason `reload`. */
export async function reloadSession(session: AgentSession): Promise<LifecycleResult> {
  await session.reload()
  return { cancelled: false }
}

/**
 * The editor's text after a step, as Pi's interactive mode leaves it: after a /fork, the user message forked
 * before (an empty editor for one `at` an entry); after a /tree move to a user message, that message, when
 * the editor was empty. A cancelled step leaves it.
 */
export function editorTextAfter(step: 'fork' | 'navigate', result: LifecycleResult, editorText: string): string {
  if (result.cancelled) return editorText
  if (step === 'fork') return result.selectedText ?? ''
  return result.editorText && !editorText.trim() ? result.editorText : editorText
}
