// Per-file session defaults: the config's environmentOptions.pi with the file's docblock over them.
import { inject } from 'vitest'
import type { TestSessionOptions } from '../src/session/create.js'
import type { MockUIOptions } from '../src/mocks/ui.js'

/** The session options that can be written in a config or a docblock (plain data, no functions). */
export interface PiEnvironmentOptions {
  extensions?: string[]
  root?: string
  mockUI?: MockUIOptions | false
  mockTools?: Record<string, string>
  tools?: string[]
  flags?: Record<string, boolean | string>
  systemPrompt?: string
  propagateErrors?: boolean
  toolExecution?: 'parallel' | 'sequential'
  /** A pi.ext.mock_spec.v1 file, resolved against the project root. */
  mockSpec?: string
  unhandled?: 'error' | 'warn' | 'bypass'
}

// On globalThis of the test's realm; setupVM writes it into the VM context too.
export const FILE_DEFAULTS = Symbol.for('vitest-environment-pi:file-defaults')
type Slot = { [FILE_DEFAULTS]?: PiEnvironmentOptions }

export function setFileDefaults(target: object, options: PiEnvironmentOptions | undefined): void {
  ;(target as Slot)[FILE_DEFAULTS] = options
}

/** The config's options (provided by the plugin), the file's options over them, the call's over both. */
export function withDefaults(options: TestSessionOptions): TestSessionOptions {
  let config: PiEnvironmentOptions | undefined
  try {
    config = inject('pi:defaults')
  } catch {
    config = undefined
  }
  return { ...config, ...(globalThis as Slot)[FILE_DEFAULTS], ...options }
}
