// Per-file session defaults: the config's environmentOptions.pi with the file's docblock over them.
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { expect } from 'vitest'
import type { TestSessionOptions } from '../src/session/create.js'
import type { MockUIOptions } from '../src/mocks/ui.js'
import { ATTACH_OPTIONS, type SessionAttachOptions } from './attach-options.js'
import { injected } from './provided.js'
import { checkOptions, is, isString, listOf, OPTION_CHECKS, optionPath, recordOf, type Check } from '../src/session/options.js'

/** The session options that can be written in a config or a docblock (plain data, no functions). */
export interface PiEnvironmentOptions extends SessionAttachOptions {
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
  /** Milliseconds an extension module may take to load (default 3000). */
  extensionLoadTimeout?: number
  /** Files seeded into each session's home (paths relative to it): a string as it is, an object as JSON. */
  home?: Record<string, string | object>
  /** Files seeded into each session's cwd, the same way. */
  files?: Record<string, string | object>
  /** Lets Pi discover resources in the session's home and cwd, as on start. */
  discover?: boolean
  /** Programs the network guard refuses that this file's child processes may start (docs/network-guard.md). */
  allowPrograms?: string[]
}

/** createTestSession's checks, where a config or a docblock holds paths and texts instead of functions and objects. */
export const ENVIRONMENT_OPTIONS: Record<keyof PiEnvironmentOptions, Check> = {
  ...OPTION_CHECKS,
  ...ATTACH_OPTIONS,
  extensions: listOf('an array of extension paths', is('an extension path (a string)', isString)),
  mockTools: recordOf('an object of tool names to result texts', is('a result text (a string)', isString)),
  mockSpec: is('a mock spec file path (a string)', isString),
  home: seedFilesAsData('home'),
  files: seedFilesAsData('files'),
}

/** Seeded files in a config or a docblock: texts and JSON values (a Buffer is for createTestSession). */
function seedFilesAsData(option: 'home' | 'files'): Check {
  const check = OPTION_CHECKS[option]
  return (value, path) => {
    const problem = check(value, path)
    if (problem !== undefined) return problem
    const bytes = Object.keys(value as object).find((key) => (value as Record<string, unknown>)[key] instanceof Uint8Array)
    if (bytes === undefined) return undefined
    return `option "${optionPath(path, bytes)}" must be a text or a JSON value here (a Buffer is for createTestSession's own options)`
  }
}

// On globalThis of the test's realm; setupVM writes it into the VM context too.
export const FILE_DEFAULTS = Symbol.for('vitest-environment-pi:file-defaults')
type Slot = { [FILE_DEFAULTS]?: PiEnvironmentOptions }

export function setFileDefaults(target: object, options: PiEnvironmentOptions | undefined): void {
  ;(target as Slot)[FILE_DEFAULTS] = options
}

/**
 * The config's options (provided by the plugin, which checked them), the file's options over them, the
 * call's over both. The file's are checked here, where the test file is known.
 */
export function withDefaults(options: TestSessionOptions & SessionAttachOptions): TestSessionOptions & SessionAttachOptions {
  const config = injected('pi:defaults')
  const file = (globalThis as Slot)[FILE_DEFAULTS]
  checkOptions(file, ENVIRONMENT_OPTIONS, fileOptionsSource)
  const merged = { ...config, ...file, ...options }
  // Seeded files add up path by path: the config's, the file's, then the call's.
  for (const key of ['home', 'files'] as const) {
    const layers = [config?.[key], file?.[key], options[key]]
    if (layers.filter((layer) => layer !== undefined).length > 1) merged[key] = Object.assign({}, ...layers)
  }
  return merged
}

/** Vitest takes a file's docblock options instead of the config's: the file says which these are. */
function fileOptionsSource(): string {
  const file = expect.getState().testPath
  const text = file === undefined ? undefined : readText(file)
  if (file === undefined || text === undefined) return 'environmentOptions.pi or a @vitest-environment-options docblock'
  return /@(?:vitest|jest)-environment-options\s/.test(text) ? `the @vitest-environment-options docblock of ${relative(process.cwd(), file)}` : 'environmentOptions.pi'
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}
