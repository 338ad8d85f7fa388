// The plan of a session: its options checked, defaults applied and the mock spec read and validated,
// before any temp dir, mock or Pi object exists.
import { resolve } from 'node:path'
import { modelFor } from '../mocks/model.js'
import type { UnhandledMode } from '../mocks/rules.js'
import { extensionIdFor } from '../mocks/spec/extension-id.js'
import { resolveMocks, type MockBlocks } from '../mocks/spec/resolve.js'
import type { Model } from '../pi/types.js'
import { checkSessionOptions, type TestSessionOptions } from './options.js'

export interface SessionPlan {
  options: TestSessionOptions
  /** Where relative paths (extensions, the mock spec) resolve. */
  root: string
  /** The caller's cwd, resolved; undefined for a fresh temp dir. */
  cwd: string | undefined
  propagateErrors: boolean
  unhandled: UnhandledMode
  blocks: MockBlocks
  /** The model the session reports, and what its registry lists. */
  model: Model<string>
  availableModels: Model<string>[]
}

export function planSession(options: TestSessionOptions): SessionPlan {
  checkSessionOptions(options)
  const root = options.root ?? process.cwd()
  const extensionIds = () => (options.extensions ?? []).flatMap((e) => (typeof e === 'string' ? [extensionIdFor(resolve(root, e))] : []))
  const blocks = resolveMocks(options.mockSpec, options.mocks, { root, extensionIds })
  const { model, available } = modelFor(blocks.model)
  return {
    options,
    root,
    cwd: options.cwd === undefined ? undefined : resolve(options.cwd),
    propagateErrors: options.propagateErrors ?? true,
    unhandled: options.unhandled ?? 'error',
    blocks,
    model,
    availableModels: available,
  }
}
