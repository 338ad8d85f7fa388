// What the global setup hands to tests through inject(), and the options the pi() plugin hands to it.
import { inject, type ProvidedContext } from 'vitest'
import type { ToolCallRecord, ToolResultRecord } from '../src/records/records.js'
import type { ProjectScript, ProjectScriptResult } from '../src/project/runner.js'
import type { SandboxOptions, SandboxResult } from '../src/project/sandbox.js'

/** The sandbox options a config can hold (plain data): the smoke playbook lives in a module instead. */
export interface PiSandboxConfig extends Omit<SandboxOptions, 'smoke' | 'onStep' | 'signal'> {
  /** A module whose default (or `smoke`) export is `{ script, mockTools?, mockUI?, process? }` (`process: true` runs it in the real `pi` CLI); resolved against the project root. */
  smokeFile?: string
}

/** What the global setup runs once per Vitest run. */
export interface PiGlobalSetupOptions {
  /** Run in this order, in the project root, before any test file. */
  scripts?: ProjectScript[]
  sandbox?: PiSandboxConfig
}

/** Each configured script's run. */
export type ProvidedScripts = Partial<Record<ProjectScript, ProjectScriptResult>>

/** The sandbox result as plain data: the smoke's calls and results instead of its live records. */
export type ProvidedSandbox = Omit<SandboxResult, 'smoke'> & {
  smoke?: { toolCalls: ToolCallRecord[]; toolResults: ToolResultRecord[] }
}

/** Where the plugin puts PiGlobalSetupOptions in the config's environmentOptions. */
export const GLOBAL_SETUP_OPTIONS = 'pi:globalSetup'

declare module 'vitest' {
  interface ProvidedContext {
    /** The npm scripts the pi() plugin's `scripts` option ran, by name; absent without that option. */
    'pi:scripts'?: ProvidedScripts
    /** The pi() plugin's sandbox install; absent without the `sandbox` option (a failed one fails the run). */
    'pi:sandbox'?: ProvidedSandbox
  }
}

/** What the plugin provided under `key`; undefined without the plugin, or outside a test file's worker. */
export function injected<Key extends keyof ProvidedContext>(key: Key): ProvidedContext[Key] | undefined {
  try {
    return inject(key)
  } catch {
    return undefined
  }
}
