// A failing test carries its sessions as Pi shows them: Pi's HTML export and Pi's session file, attached
// to the test through Vitest's annotations (the HTML reporter and the UI list them under the test).
import { join } from 'node:path'
import type { TestContext } from 'vitest'
import { messageOf } from '../src/shared/errors.js'
import { exportSessionPage, saveSessionFile } from '../src/pi/index.js'
import type { TestSession } from '../src/session/create.js'
import { isProcessSession } from '../src/process/session.js'
import type { SessionAttachOptions } from './attach-options.js'
import { discardWritten, keepOneCopy, pathSlug } from './attach-files.js'
import { annotateEndedTest } from './vitest-internals.js'

/** The annotation type of the attachments, for a reporter that looks for them. */
export const SESSION_ANNOTATION = 'pi:session'

/** What the attachment needs of the test: its context as onTestFinished and fixtures get it. */
export type EndingTest = Pick<TestContext, 'task' | 'annotate'>

/**
 * Attaches `t` (called `label` in the messages, `slug` in file names) to its test when `failed` (the test,
 * or the session's own end) or when the options say always: written before the session is disposed.
 */
export async function attachSession(t: TestSession, test: EndingTest, failed: boolean, where: { options: Required<SessionAttachOptions>; label: string; slug: string }): Promise<void> {
  const { attach, attachDir } = where.options
  if (attach === 'never' || (attach === 'on-failure' && !failed && test.task.result?.state !== 'fail')) return
  const base = join(attachDir, pathSlug(test.task.file?.name ?? 'file'), pathSlug(test.task.fullTestName ?? test.task.name), where.slug)
  if (isProcessSession(t)) {
    await annotateEndedTest(test, `${where.label}: not attached, its Pi ran in a pi process (Pi's session file and HTML export are made in process only)`, SESSION_ANNOTATION)
    return
  }
  let sessionFile: string
  try {
    sessionFile = saveSessionFile(t.session, `${base}.jsonl`)
  } catch (error) {
    // Pi writes its sessions with JSON.stringify: a cyclic or BigInt value (a tool's details) has no file, in Pi either.
    if (!(error instanceof TypeError)) throw new Error(`Attaching ${where.label} to the test (${base}.jsonl) failed: ${messageOf(error)}`, { cause: error })
    discardWritten(attachDir, `${base}.jsonl`)
    await annotateEndedTest(test, `${where.label}: not attached, Pi cannot write it as JSON (${messageOf(error).split('\n')[0]})`, SESSION_ANNOTATION)
    return
  }
  try {
    const page = await exportSessionPage(t.session, `${base}.html`, sessionFile)
    const pageCopy = await annotateEndedTest(test, `${where.label}: Pi's HTML export`, SESSION_ANNOTATION, { path: page, contentType: 'text/html' })
    const fileCopy = await annotateEndedTest(test, `${where.label}: Pi's session file`, SESSION_ANNOTATION, { path: sessionFile, contentType: 'application/jsonl' })
    keepOneCopy(attachDir, page, pageCopy.attachment?.path)
    keepOneCopy(attachDir, sessionFile, fileCopy.attachment?.path)
  } catch (error) {
    throw new Error(`Attaching ${where.label} to the test (${base}.html/.jsonl) failed: ${messageOf(error)}`, { cause: error })
  }
}
