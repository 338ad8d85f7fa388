// When and where a test's sessions are attached to it: the options of pi({ ... }), a file's docblock and
// createTestSession. Plain data and checks only: the config process reads them without loading Pi.
import { join, resolve } from 'node:path'
import { checkOptions, is, isString, oneOf, type Check } from '../src/session/options.js'

export type AttachMode = 'on-failure' | 'always' | 'never'

export interface SessionAttachOptions {
  /** When a test's sessions are attached to it: when it fails (default), after every test, or never. */
  attach?: AttachMode
  /** The folder the attached files are written to (the project root's `.vitest-attachments/pi-sessions` unless set). */
  attachDir?: string
}

export const ATTACH_OPTIONS: Record<keyof SessionAttachOptions, Check> = {
  attach: oneOf(['on-failure', 'always', 'never']),
  attachDir: is('a directory path (a string)', isString),
}

/**
 * Takes the attach options out of `options` (checked here: createTestSession's own check knows none of
 * them) and says where and when `t` is attached: the folder resolved against `root`.
 */
export function attachOptionsOf<T extends SessionAttachOptions & { root?: string }>(options: T): [Omit<T, keyof SessionAttachOptions>, Required<SessionAttachOptions>] {
  const { attach, attachDir, ...rest } = options
  checkOptions({ attach, attachDir }, ATTACH_OPTIONS, 'createTestSession')
  const root = options.root ?? process.cwd()
  return [rest, { attach: attach ?? 'on-failure', attachDir: resolve(root, attachDir ?? join('.vitest-attachments', 'pi-sessions')) }]
}
