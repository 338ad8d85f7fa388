// A session in Pi's own formats: the JSONL session file `pi --session` resumes, and the page `/export`
// writes. The harness keeps sessions in memory; Pi renders a page only from a session file, so the page
// is rendered from the JSONL saved beside it.
import { resolve } from 'node:path'
import type { AgentSession } from '@mariozechner/pi-coding-agent'

/** Writes the session's current branch as Pi's session file (header, then every entry) and returns its absolute path. */
export function saveSessionFile(session: AgentSession, path: string): string {
  return session.exportToJsonl(resolve(path))
}

/**
 * Writes Pi's HTML export of the session to `path`, rendered by Pi's own exportToHtml from `sessionFile`
 * (written by saveSessionFile just before): Pi refuses to render a session that has no file.
 */
export async function exportSessionPage(session: AgentSession, path: string, sessionFile: string): Promise<string> {
  const manager = session.sessionManager
  // An own property over the prototype's method, for this one call: the file Pi's exporter checks and reads.
  Object.defineProperty(manager, 'getSessionFile', { value: () => sessionFile, configurable: true })
  try {
    return await session.exportToHtml(resolve(path))
  } finally {
    delete (manager as { getSessionFile?: unknown }).getSessionFile
  }
}
