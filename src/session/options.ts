// What createTestSession takes, and the check that runs before anything is created.
import type { MockToolHandler } from '../mocks/tools.js'
import type { MockUIOptions } from '../mocks/ui.js'
import type { MockBlocks } from '../mocks/world.js'
import type { MockSpec } from '../mocks/spec/types.js'
import type { ExtensionFactory } from '../pi/index.js'
import type { ModuleLoader } from './module-loader.js'

export interface TestSessionOptions {
  /** Extension files (resolved against `root`) or inline factories `(pi) => void`. */
  extensions?: (string | ExtensionFactory)[]
  /** Where relative extension paths are resolved; defaults to the process's cwd (the project root under Vitest). */
  root?: string
  /** The session's working directory; defaults to a fresh temp dir, removed on dispose. */
  cwd?: string
  /** Tools answered by mocks instead of their own `execute`; hooks still fire. */
  mockTools?: Record<string, MockToolHandler>
  /** Dialog answers; `false` makes a headless session (`ctx.hasUI === false`). */
  mockUI?: MockUIOptions | false
  /** Allowlist of tool names, as Pi's `tools` option. */
  tools?: string[]
  /** Extension flag values, as `pi --plan` or `pi --name value` set them before the session starts. */
  flags?: Record<string, boolean | string>
  systemPrompt?: string
  /** A real tool's throw, or an extension handler's error, fails the run (default true). */
  propagateErrors?: boolean
  toolExecution?: 'parallel' | 'sequential'
  /** How extension modules are imported; the setup file registers Vite's import under Vitest. */
  importModule?: ModuleLoader
  /** A pi.ext.mock_spec.v1 world: a path (resolved against `root`) or an object, validated. */
  mockSpec?: string | MockSpec
  /** The same blocks without a file (session, http, exec, tools, ui, events, model); they win over mockSpec's. */
  mocks?: MockBlocks
  /** What a call no mock answers does: fail the test (default), warn, or run for real (exec only; HTTP never leaves the machine). */
  unhandled?: 'error' | 'warn' | 'bypass'
}

/** Throws a TypeError naming the option, what it takes and what it got, before any temp dir, mock or Pi object exists. */
export function checkSessionOptions(options: unknown): asserts options is TestSessionOptions {}
