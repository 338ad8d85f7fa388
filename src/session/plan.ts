// The plan of a session: its options checked, defaults applied and the mock spec read and validated,
// before any temp dir, mock or Pi object exists.
import { resolve } from 'node:path'
import { modelFor } from '../mocks/model.js'
import type { UnhandledMode } from '../mocks/rules.js'
import { extensionIdFor } from '../mocks/spec/extension-id.js'
import { resolveMocks, type MockBlocks } from '../mocks/spec/resolve.js'
import type { Model } from '../pi/types.js'
import type { SessionDirs } from '../isolation/session-dirs.js'
import { checkSessionOptions, type TestSessionOptions } from './options.js'
import { dirsToRestart } from './restart.js'

export interface SessionPlan {
  options: TestSessionOptions
  /** Where relative paths (extensions, the mock spec) resolve. */
  root: string
  /** The caller's cwd, resolved; undefined for a fresh temp dir. */
  cwd: string | undefined
  /** The dirs of the session this one restarts from. */
  restartFrom: SessionDirs | undefined
  propagateErrors: boolean
  unhandled: UnhandledMode
  blocks: MockBlocks
  /** The model the session reports, and what its registry lists. */
  model: Model<string>
  availableModels: Model<string>[]
}

export function planSession(options: TestSessionOptions): SessionPlan {
  checkSessionOptions(options)
  if (options.restartFrom !== undefined && options.cwd !== undefined) {
    throw new TypeError('createTestSession: options "restartFrom" and "cwd" cannot go together: a restarted session keeps the cwd of the session it restarts from')
  }
  const restartFrom = options.restartFrom === undefined ? undefined : dirsToRestart(options.restartFrom)
  if (options.files !== undefined && (options.cwd !== undefined || (restartFrom !== undefined && !restartFrom.ownsCwd))) {
    throw new TypeError(`createTestSession: option "files" seeds the session's own temp cwd, and this session runs in the test's cwd (${options.cwd ?? restartFrom!.cwd}): write the files there yourself`)
  }
  const root = options.root ?? process.cwd()
  const extensionIds = () => (options.extensions ?? []).flatMap((e) => (typeof e === 'string' ? [extensionIdFor(resolve(root, e))] : []))
  const blocks = resolveMocks(options.mockSpec, options.mocks, { root, extensionIds })
  const { model, available } = modelFor(blocks.model)
  return {
    options,
    root,
    cwd: options.cwd === undefined ? undefined : resolve(options.cwd),
    restartFrom,
    propagateErrors: options.propagateErrors ?? true,
    unhandled: options.unhandled ?? 'error',
    blocks,
    model,
    availableModels: available,
  }
}
