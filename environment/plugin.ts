// pi(): the one line in vitest.config.ts that sets the environment, the setup file, the session defaults
// and, for `scripts` or `sandbox`, the global setup that runs them once.
/// <reference types="vitest/config" />
import { existsSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AliasOptions, Plugin } from 'vite'
import { entryFileFrom, findPiLine, PI_CORE_ENTRIES, PI_PACKAGE_ENV, PI_SCOPES, PI_TYPEBOX, piLineAliases, piTypeBoxFiles } from '../src/pi/line.js'
import { ensurePiBundle } from '../src/pi/bundle.js'
import { PI_BUNDLE_ENV, piFile, usesPiBundle } from '../src/pi/bundled.js'
import { PROJECT_SCRIPTS } from '../src/project/runner.js'
import { checkOptions, fields, is, isObject, isString, listOf, oneOf, type Check } from '../src/session/options.js'
import { clearEarlierAttachments } from './attach-files.js'
import { attachOptionsOf } from './attach-options.js'
import { escapeRegExp } from './escape-regexp.js'
import { ENVIRONMENT_OPTIONS, type PiEnvironmentOptions } from './defaults.js'
import { rerunOnReads } from './rerun-on-reads.js'
import { addReporter } from './vitest-internals.js'
import { warmWorkers } from './warm-workers.js'
import { GLOBAL_SETUP_OPTIONS, type PiGlobalSetupOptions, type PiSandboxConfig } from './provided.js'

export { findPiLine } from '../src/pi/line.js'

export interface PiPluginOptions extends PiEnvironmentOptions, PiGlobalSetupOptions {
  /**
   * Vitest's `isolate` for the project. `false`: a worker imports Pi once and runs many files, and the
   * harness undoes what each file leaves behind (env, globals, local modules, Pi's registries, timers,
   * process listeners, sessions) before the next one. Unset: Vitest's default, a fresh worker per file.
   */
  isolate?: boolean
  /**
   * Whether the workers import Pi from a bundle of its modules, built once into `node_modules/.cache` and
   * rebuilt when a file of Pi changes (default true): about half of Pi's import in every test file. `false`:
   * Pi's own files.
   */
  bundlePi?: boolean
  /**
   * Whether each `pi` test file's worker is started ahead, while the files before it run, with the file's
   * isolation entered and Pi imported (default true): Vitest's forks pool, a new process per file as
   * before, that a file no longer waits for. Only where the project names no pool (Vitest's default, forks)
   * and keeps its default isolation; `false`: Vitest's own forks pool.
   */
  warmWorkers?: boolean
  /**
   * The Pi line to run when both are installed: `@earendil-works/pi-coding-agent` or
   * `@mariozechner/pi-coding-agent`. Unset: the first installed line that runs on this Node, in that order.
   */
  piPackage?: string
}

const strings = (expects: string) => listOf(expects, is('a string', isString))

const SANDBOX_OPTIONS: Record<keyof PiSandboxConfig, Check> = {
  packageDir: is('the package directory (a string)', isString),
  smokeFile: is('a module path (a string)', isString),
  tempDir: is('a directory path (a string)', isString),
  timeoutMs: is('a number of milliseconds', (v) => typeof v === 'number'),
  npmCommand: strings('an array of strings, the argv that runs npm'),
  installArgs: strings('an array of npm install arguments'),
  env: is('an object of environment variables', isObject),
  expect: is('an object of what the installed package must have', isObject),
}

const PLUGIN_OPTIONS: Record<keyof PiPluginOptions, Check> = {
  ...ENVIRONMENT_OPTIONS,
  isolate: is('a boolean', (v) => typeof v === 'boolean'),
  bundlePi: is('a boolean', (v) => typeof v === 'boolean'),
  warmWorkers: is('a boolean', (v) => typeof v === 'boolean'),
  piPackage: oneOf(PI_SCOPES.map((scope) => `${scope}/pi-coding-agent`)),
  scripts: listOf('an array of package.json script names', oneOf(PROJECT_SCRIPTS)),
  sandbox: fields('an object with the packageDir to install', SANDBOX_OPTIONS, ['packageDir']),
}

// Next to this file: .js once built, .ts when run from source.
function sibling(name: string): string {
  const js = fileURLToPath(new URL(`./${name}.js`, import.meta.url))
  return existsSync(js) ? js : fileURLToPath(new URL(`./${name}.ts`, import.meta.url))
}

/** Vite's alias option in its array form, so that ours can be added to a user's of either form. */
function aliasEntries(alias: AliasOptions | undefined): { find: string | RegExp; replacement: string }[] {
  if (alias === undefined) return []
  return Array.isArray(alias) ? [...alias] : Object.entries(alias).map(([find, replacement]) => ({ find, replacement }))
}

/**
 * Vite aliases that answer Pi's entry points, under either line's name, as Pi's loader answers them on
 * the running line. Exact matches: `@x/pi-ai` must not rewrite `@x/pi-ai/models`.
 */
export function piResolveAliases(): { find: RegExp; replacement: string }[] {
  const line = findPiLine()
  const aliases = piLineAliases(line)
  const exact = (specifier: string, replacement: string) => ({ find: new RegExp(`^${escapeRegExp(specifier)}$`), replacement })
  // TypeBox by either name is the coding agent's own, as Pi's loader hands it to extensions.
  const typeBoxFiles = piTypeBoxFiles(line)
  const typeBox = Object.entries(PI_TYPEBOX).flatMap(([specifier, entry]) => {
    const file = typeBoxFiles.get(entry)
    return file === undefined ? [] : [exact(specifier, piFile(line, file))]
  })
  if (!usesPiBundle(line)) return [...Object.entries(aliases).map(([specifier, replacement]) => exact(specifier, replacement)), ...typeBox]
  // With the run's bundle of Pi, every entry point is answered by the bundle's file for it, as the harness imports it.
  const entries = PI_SCOPES.flatMap((scope) =>
    PI_CORE_ENTRIES.flatMap((entry) => {
      const target = aliases[`${scope}/${entry}`] ?? `${line.scope}/${entry}`
      const file = isAbsolute(target) ? target : entryFileFrom(line.packageDir, target)
      return file === undefined ? [] : [exact(`${scope}/${entry}`, piFile(line, file))]
    }),
  )
  return [...entries, ...typeBox]
}

/**
 * Builds the bundle of Pi's modules this run's workers import (or finds the one an earlier run built) and
 * names it to them. A build that fails leaves Pi's own files in use, with a warning saying why.
 */
export async function usePiBundle(line = findPiLine()): Promise<void> {
  try {
    process.env[PI_BUNDLE_ENV] = await ensurePiBundle(line)
  } catch (error) {
    delete process.env[PI_BUNDLE_ENV]
    console.warn(`vitest-environment-pi: importing ${line.packageName} unbundled (slower per test file): its bundle failed to build: ${(error as Error).message}`)
  }
}

const toArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value])

export function pi(options: PiPluginOptions = {}): Plugin {
  checkOptions(options, PLUGIN_OPTIONS, 'pi({ ... })')
  const warm = options.warmWorkers === false ? undefined : warmWorkers(sibling('warm-entry'))
  const warmed = new WeakSet<object>()
  return {
    name: 'vitest-environment-pi',
    // The config hook runs before Vitest resolves its config, so the setup file is inlined by Vite;
    // mutating (instead of returning a partial config) puts our setup file before the user's.
    async config(config) {
      const test = (config.test ??= {})
      checkOptions(test.environmentOptions?.pi, ENVIRONMENT_OPTIONS, 'environmentOptions.pi')
      test.environment = 'pi'
      const { scripts, sandbox, isolate, piPackage, bundlePi = true, warmWorkers: _, ...sessionOptions } = options
      // Where no pool is named (in the config or, on Vitest 5, on the command line, which it puts there first):
      // Vitest's default, the forks pool, with each file's worker started ahead.
      if (warm !== undefined && test.pool === undefined) test.pool = warm.pool
      // Workers inherit the environment: every one of them then runs the same line, from the same bundle.
      if (piPackage !== undefined) process.env[PI_PACKAGE_ENV] = piPackage
      if (bundlePi) await usePiBundle()
      else delete process.env[PI_BUNDLE_ENV]
      // An extension imports Pi by either line's name; both load the running Pi, as Pi's own loader does.
      config.resolve = { ...config.resolve, alias: [...aliasEntries(config.resolve?.alias), ...piResolveAliases()] }
      const root = resolve(test.root ?? config.root ?? process.cwd())
      const defaults: PiEnvironmentOptions = {
        // Relative extension paths resolve against the project root, wherever the workers run.
        root,
        // Sessions attached to a test are written inside Vitest's attachments dir (its workers are not told it).
        ...(test.attachmentsDir === undefined ? {} : { attachDir: join(test.attachmentsDir, 'pi-sessions') }),
        ...sessionOptions,
        ...(test.environmentOptions?.pi as PiEnvironmentOptions | undefined),
      }
      test.environmentOptions = { ...test.environmentOptions, pi: defaults }
      test.provide = { ...test.provide, 'pi:defaults': defaults }
      if (isolate !== undefined) {
        test.isolate = isolate
        // The setup file reads Vitest's resolved isolate; this is its fallback.
        test.provide['pi:isolate'] = isolate
      }
      test.setupFiles = [sibling('setup'), ...toArray(test.setupFiles).filter((file) => !/vitest-environment-pi\/setup$/.test(file))]
      externalizeHarness(test)
      if (scripts?.length || sandbox) {
        // Absolute paths: every project (and the root) then asks for the same run, which happens once.
        const once: PiGlobalSetupOptions = {
          ...(scripts?.length ? { scripts } : {}),
          ...(sandbox ? { sandbox: { ...sandbox, packageDir: resolve(root, sandbox.packageDir) } } : {}),
        }
        if (sandbox?.smokeFile !== undefined) once.sandbox!.smokeFile = resolve(root, sandbox.smokeFile)
        if (sandbox?.tempDir !== undefined) once.sandbox!.tempDir = resolve(root, sandbox.tempDir)
        test.environmentOptions[GLOBAL_SETUP_OPTIONS] = once
        test.globalSetup = [...toArray(test.globalSetup).filter((file) => file !== sibling('global-setup')), sibling('global-setup')]
      }
    },
    // Editing an extension, a module it imports or a mock spec reruns the test files whose sessions read it.
    configureVitest({ vitest, project }) {
      rerunOnReads(vitest, sibling('setup'))
      // Once per Vitest, whose projects share the workers started ahead.
      if (warm !== undefined && !warmed.has(vitest)) {
        warmed.add(vitest)
        addReporter(vitest, warm.reporter)
        vitest.onClose(warm.stopSpares)
      }
      // Each run starts without the sessions earlier runs attached, as Playwright empties its output dir.
      const pi = project.config.environmentOptions?.pi as PiEnvironmentOptions | undefined
      clearEarlierAttachments(attachOptionsOf({ root: project.config.root, ...pi })[1].attachDir)
    },
  }
}

type TestConfig = NonNullable<import('vite').UserConfig['test']>

/**
 * Outside node_modules (this repository, a linked checkout) Vite would inline the built harness and
 * evaluate each of its modules through the module runner in every worker; Node loads it natively
 * instead, as it does an installed copy. The setup file stays inlined (Vitest inlines setup files),
 * so the extensions it imports still go through Vite. Sources run by Vite (.ts) are not affected.
 */
function externalizeHarness(test: TestConfig): void {
  const built = fileURLToPath(new URL('../', import.meta.url))
  if (built.includes('/node_modules/') || !existsSync(fileURLToPath(new URL('./plugin.js', import.meta.url)))) return
  const deps = ((test.server ??= {}).deps ??= {})
  const own = new RegExp(`^${escapeRegExp(built)}(environment|src|matchers)/.*\\.js$`)
  deps.external = [...toArray(deps.external), own]
}
