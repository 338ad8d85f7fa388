// What createTestSession takes, and the check that runs before anything is created. Its checks are small
// values (is, listOf, fields, …) that pi({ ... }) and the per-file options reuse with their own tables.
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { MockToolHandler } from '../mocks/tools.js'
import type { MockUIOptions } from '../mocks/ui.js'
import type { MockBlocks } from '../mocks/spec/resolve.js'
import type { MockSpec } from '../mocks/spec/types.js'
import type { ExtensionFactory } from '../pi/types.js'
import type { ModuleLoader } from './module-loader.js'
import { closestName, describeReceived } from '../shared/errors.js'
import { isCustomKeys, keystrokes, type KeyInput } from '../mocks/keys.js'
import { seedFileProblem, type SeedFiles } from '../isolation/seed-files.js'
import { REFUSED_PROGRAMS } from '../isolation/network-programs.js'

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
  /** Milliseconds an extension module may take to load, top-level awaits included (default 3000); then loading fails naming it. */
  extensionLoadTimeout?: number
  /** How extension modules are imported; the setup file registers Vite's import under Vitest. */
  importModule?: ModuleLoader
  /** A pi.ext.mock_spec.v1 world: a path (resolved against `root`) or an object, validated. */
  mockSpec?: string | MockSpec
  /** The same blocks without a file (session, http, exec, tools, ui, events, model); they win over mockSpec's. */
  mocks?: MockBlocks
  /** What a call no mock answers does: fail the test (default), warn, or run for real (exec only; HTTP never leaves the machine). */
  unhandled?: 'error' | 'warn' | 'bypass'
  /**
   * Files written into the session's home before anything of its extensions runs, by path relative to the home
   * (`.pi/agent/settings.json`): an object or array is written as JSON, a string or a Buffer as it is.
   */
  home?: SeedFiles
  /** The same for the session's cwd (`src/a.ts`, `.pi/settings.json`, `AGENTS.md`); not with a `cwd` of the test's own. */
  files?: SeedFiles
  /**
   * Starts over the home and cwd of an earlier session of the same test, as quitting Pi and starting it again:
   * that session is disposed first (its `session_shutdown` fires), and its dirs are kept for this one.
   */
  restartFrom?: TestSessionHandle
  /**
   * Lets Pi discover what it discovers on start, inside the session's home and cwd only: the project's
   * `.pi/extensions`, the agent dir's extensions, AGENTS.md, skills, prompt templates, themes. Off by default.
   */
  discover?: boolean
  /**
   * Programs that reach the network without a proxy (ssh, nc, ping, dig…), which the network guard refuses to
   * start, that child processes of this session may start: for one that stays on loopback (docs/network-guard.md).
   */
  allowPrograms?: string[]
  /** Runs the real `pi` CLI in RPC mode as a child process instead of an in-process session (docs/process-depth.md). */
  process?: boolean | ProcessOptions
}

/** What `restartFrom` takes: a session createTestSession returned (named here to keep options free of the handle's imports). */
export interface TestSessionHandle {
  readonly home: string
  readonly cwd: string
  dispose(): Promise<void>
}

/** The process depth's settings: what reaches the child, and its bounds. */
export interface ProcessOptions {
  /** Arguments added to the child's command line, as a user types them (`['--preset', 'fast']`). */
  argv?: string[]
  /**
   * Pi packages (directories with a package.json `pi` manifest, e.g. the copy the sandbox step installed),
   * listed in the session's settings so that Pi loads them through their manifest, as after `pi install`.
   */
  packages?: string[]
  /** Variables set in the child's environment (over the session's isolation). */
  env?: Record<string, string>
  /** Milliseconds from spawn until Pi answers (extensions loaded, session_start fired); default 60000. */
  startupTimeout?: number
  /** Milliseconds one run() or command() turn may take; default 60000. */
  turnTimeout?: number
}

/** Throws a TypeError naming the option, what it takes and what it got, before any temp dir, mock or Pi object exists. */
export function checkSessionOptions(options: unknown): asserts options is TestSessionOptions {
  checkOptions(options, SESSION_OPTIONS, 'createTestSession')
}

/**
 * What is wrong with `value` at `path` (`tools`, `mockUI.confirm`, `extensions[1]`), as the end of a
 * message (`option "tools" must be …, got …`), or undefined when nothing is.
 */
export type Check = (value: unknown, path: string) => string | undefined

/**
 * Throws `where: <problem>` as a TypeError for the first problem of `options` (undefined is no options).
 * `where` says where they came from (`pi({ ... })`, a file's docblock); a function is asked only on a problem.
 */
export function checkOptions(options: unknown, checks: Readonly<Record<string, Check>>, where: string | (() => string)): void {
  if (options === undefined) return
  const problem = isObject(options) ? fieldProblem(options, checks, '') : `options must be an object, got ${describeReceived(options)}`
  if (problem !== undefined) throw new TypeError(`${typeof where === 'string' ? where : where()}: ${problem}`)
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  // Not instanceof: objects from Vitest's VM context have another Object.prototype.
  Object.prototype.toString.call(value) === '[object Object]'
export const isString = (value: unknown): value is string => typeof value === 'string'
const isFunction = (value: unknown) => typeof value === 'function'
/** How a message names `key` inside the option at `path`: `mockUI.confirm`, `home['.pi/agent/settings.json']`. */
export const optionPath = (path: string, key: string) => {
  // Single quotes: the whole path is quoted in the message.
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${path}['${key.replace(/['\\]/g, '\\$&')}']`
  return path === '' ? key : `${path}.${key}`
}
// Pi would start in it and every tool call fail there: refused before anything is created.
function directoryProblem(value: string, path: string): string | undefined {
  const stat = statSync(resolve(value), { throwIfNoEntry: false })
  if (stat?.isDirectory()) return undefined
  return `option "${path}" must be a directory that exists, got ${JSON.stringify(value)}${stat ? ', which is a file' : ', which does not exist'}`
}
const mustBe = (path: string, expects: string, value: unknown) => `option "${path}" must be ${expects}, got ${describeReceived(value)}`

function firstProblem<T>(entries: Iterable<T>, check: (entry: T) => string | undefined): string | undefined {
  for (const entry of entries) {
    const problem = check(entry)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** Unknown keys first (a typo explains a missing value), then each known key that is set. */
function fieldProblem(value: Record<string, unknown>, checks: Readonly<Record<string, Check>>, path: string, required: readonly string[] = []) {
  const known = Object.keys(checks)
  const unknown = Object.keys(value).find((key) => !Object.hasOwn(checks, key))
  if (unknown !== undefined) {
    const closest = closestName(unknown, known)
    const hint = closest === undefined ? `the options are ${[...known].sort().join(', ')}` : `did you mean "${optionPath(path, closest)}"?`
    return `unknown option "${optionPath(path, unknown)}"; ${hint}`
  }
  return firstProblem(known, (key) => (value[key] === undefined && !required.includes(key) ? undefined : checks[key]!(value[key], optionPath(path, key))))
}

/** A value `test` accepts, described as `expects` (`a boolean`) when it is not one. */
export const is =
  (expects: string, test: (value: unknown) => boolean): Check =>
  (value, path) =>
    test(value) ? undefined : mustBe(path, expects, value)

/** One of a few strings: `"error", "warn" or "bypass"`. */
export const oneOf = (values: readonly string[]): Check =>
  is(values.map((v) => JSON.stringify(v)).join(', ').replace(/, ([^,]*)$/, ' or $1'), (value) => values.includes(value as string))

export const listOf =
  (expects: string, item: Check): Check =>
  (value, path) =>
    Array.isArray(value) ? firstProblem(value.entries(), ([index, entry]) => item(entry, `${path}[${index}]`)) : mustBe(path, expects, value)

/** An object of any keys, each value checked by `entry`. */
export const recordOf =
  (expects: string, entry: Check): Check =>
  (value, path) =>
    isObject(value) ? firstProblem(Object.entries(value), ([key, v]) => entry(v, optionPath(path, key))) : mustBe(path, expects, value)

/** An object of known keys, each with its own check. */
export const fields =
  (expects: string, checks: Readonly<Record<string, Check>>, required: readonly string[] = []): Check =>
  (value, path) =>
    isObject(value) ? fieldProblem(value, checks, path, required) : mustBe(path, expects, value)

// mocks/ui.ts's TIMEOUT, by its registry key: importing ui.ts would load Pi into the vitest config process.
const isTimeout = (value: unknown) => typeof value === 'symbol' && Symbol.keyFor(value) === 'vitest-environment-pi:dialog-timeout'

/** A DialogScript: an answer, TIMEOUT, a queue of those, or a function. */
function dialog(answer: string, isAnswer: (value: unknown) => boolean): Check {
  const isOne = (value: unknown) => isAnswer(value) || isTimeout(value)
  const one = is(`${answer}, or TIMEOUT`, isOne)
  return (value, path) => {
    if (isFunction(value) || isOne(value)) return undefined
    if (Array.isArray(value)) return firstProblem(value.entries(), ([index, entry]) => one(entry, `${path}[${index}]`))
    return mustBe(path, `${answer}, TIMEOUT, an array of those, or a function`, value)
  }
}

const isKey = (value: unknown) => {
  try {
    keystrokes(value as KeyInput, '')
    return true
  } catch {
    return false
  }
}
const screenSize = is('a whole number of character cells (1 or more)', (v) => Number.isInteger(v) && (v as number) >= 1)
const customKeys = fields('{ keys, columns, rows }', {
  keys: listOf('an array of keys', is('a pi-tui key id ("down", "enter", "ctrl+c", a character) or { text }', isKey)),
  columns: screenSize,
  rows: screenSize,
})

const customScript: Check = (value, path) => (isCustomKeys(value) ? customKeys(value, path) : undefined)

const mockUI = fields('an object of dialog answers, or false', {
  confirm: dialog('a boolean', (v) => typeof v === 'boolean'),
  select: dialog("an option's text or index", (v) => v === undefined || isString(v) || typeof v === 'number'),
  input: dialog('a string', (v) => v === undefined || isString(v)),
  editor: dialog('a string', (v) => v === undefined || isString(v)),
  // Any value answers custom(), an array is a queue of them; `{ keys }` runs the component, so its keys and size are checked.
  custom: (value: unknown, path: string) => (Array.isArray(value) ? firstProblem(value.entries(), ([index, entry]) => customScript(entry, `${path}[${index}]`)) : customScript(value, path)),
  strict: is('a boolean', (v) => typeof v === 'boolean'),
  editorText: is('a string', isString),
})

/** Seeded files: each key a path inside the dir, each value a file's content. */
const seedFiles: Check = (value, path) =>
  isObject(value)
    ? firstProblem(Object.entries(value), ([key, content]) => seedFileProblem(key, content, optionPath(path, key)))
    : mustBe(path, 'an object of file paths (relative to the dir) to contents', value)

// setTimeout's largest delay: a longer one fires at once.
const MAX_TIMEOUT_MS = 2 ** 31 - 1

/** Checks shared by createTestSession and the per-file options of the environment. */
export const OPTION_CHECKS = {
  root: is('a directory path (a string)', isString),
  mockUI: (value: unknown, path: string) => (value === false ? undefined : mockUI(value, path)),
  tools: listOf('an array of tool names', is('a tool name (a string)', isString)),
  flags: recordOf('an object of flag names to values', is('a boolean or a string', (v) => typeof v === 'boolean' || isString(v))),
  systemPrompt: is('a string', isString),
  propagateErrors: is('a boolean', (v) => typeof v === 'boolean'),
  toolExecution: oneOf(['parallel', 'sequential']),
  unhandled: oneOf(['error', 'warn', 'bypass']),
  extensionLoadTimeout: is('a positive number of milliseconds', (v) => typeof v === 'number' && v > 0 && v <= MAX_TIMEOUT_MS),
  home: seedFiles,
  files: seedFiles,
  discover: is('a boolean', (v) => typeof v === 'boolean'),
  allowPrograms: listOf('an array of program names', is(`one of the programs the network guard refuses (${REFUSED_PROGRAMS.join(', ')})`, (v) => (REFUSED_PROGRAMS as readonly unknown[]).includes(v))),
} satisfies Record<string, Check>

const milliseconds = is('a positive number of milliseconds', (v) => typeof v === 'number' && v > 0 && v <= MAX_TIMEOUT_MS)
const processOptions = fields('true, or an object { argv, packages, env, startupTimeout, turnTimeout }', {
  argv: listOf('an array of command-line arguments', is('an argument (a string)', isString)),
  packages: listOf('an array of package directories', is('a package directory (a string)', isString)),
  env: recordOf('an object of variable names to values', is('a string', isString)),
  startupTimeout: milliseconds,
  turnTimeout: milliseconds,
})

const SESSION_OPTIONS: Record<keyof TestSessionOptions, Check> = {
  ...OPTION_CHECKS,
  extensions: listOf(
    'an array of extension paths and factory functions',
    is('an extension path (a string) or a factory function (pi) => void', (v) => isString(v) || isFunction(v)),
  ),
  cwd: (value, path) => (isString(value) ? directoryProblem(value, path) : mustBe(path, 'a directory path (a string)', value)),
  mockTools: recordOf(
    'an object of tool names to mocks',
    is('a result text, a result object { content } or a handler function', (v) => isString(v) || isFunction(v) || (isObject(v) && 'content' in v)),
  ),
  importModule: is('a function (absolutePath) => Promise<module>', isFunction),
  mockSpec: is('a mock spec file path (a string) or a pi.ext.mock_spec.v1 object', (v) => isString(v) || isObject(v)),
  mocks: is('an object of mock blocks (session, http, exec, tools, ui, events, model)', isObject),
  restartFrom: is('a test session (what createTestSession returned)', (v) => isObject(v) && isString(v.home) && isFunction(v.dispose)),
  process: (value: unknown, path: string) => (typeof value === 'boolean' ? undefined : processOptions(value, path)),
}
