#!/usr/bin/env node
// The package's command line: `vitest-environment-pi init` and `vitest-environment-pi codegen`.
import { parseArgs } from 'node:util'
import { resolve } from 'node:path'
import { CliError, EXIT } from './errors.js'
import { PI_PACKAGE_ENV } from '../pi/line.js'
import { readProject } from './project.js'

const USAGE = `Usage: vitest-environment-pi <command> [options]

Commands:
  init                       set up this extension package for Vitest: config, tsconfig types, a first test per extension
  codegen <session.jsonl>    turn a recorded Pi session into a test

Run \`vitest-environment-pi <command> --help\` for a command's options.`

const INIT_HELP = `Usage: vitest-environment-pi init [--force] [--dir <path>]

Sets up the extension package in the current folder (or --dir) for vitest-environment-pi:
  - adds pi() to vitest.config.* (creates it, or edits a simple one; prints what to add otherwise)
  - adds "vitest-environment-pi" to tsconfig.json's compilerOptions.types (TypeScript packages)
  - writes test/<extension>.test.* for each extension Pi loads from package.json "pi.extensions" (or index.ts):
    it loads, its tools and commands are asserted, one scripted turn runs
  - adds "test": "vitest run" to package.json when it has no test script
Detects the Pi line, ES modules or CommonJS, TypeScript or JavaScript. Run twice, it changes nothing.

Options:
  --force        overwrite files init wrote before and that differ now
  --dir <path>   the package's folder (default: the current folder)
  -h, --help     this help`

const CODEGEN_HELP = `Usage: vitest-environment-pi codegen <session.jsonl> [--extension <path>] [--out <file>] [--flag name=value]

Turns a Pi session file (~/.pi/agent/sessions/.../*.jsonl, of Pi 0.73 or 1.x) into a test: one
when(prompt, [...]) per user turn, the recorded tool results as mocks (long ones in fixture files beside
the test), the dialogs' answers as mockUI, and assertions of the blocks, tool results and final answer.
It runs the session against the extension once to learn the dialogs' answers and which calls were blocked.
Secrets (API keys, tokens, Authorization headers, your home path) are redacted, and listed.

Options:
  --extension <path>   the extension the session ran with (default: the package's, from package.json)
  --out <file>         the test file to write (default: test/<session name>.test.ts, or .js in a JavaScript package)
  --flag name=value    an extension flag the session ran with (pi --name value); repeat for more
  --force              overwrite the test and fixtures if they exist and differ
  --dir <path>         the package's folder (default: the current folder)
  -h, --help           this help`

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command === undefined || command === '-h' || command === '--help') {
    console.log(USAGE)
    return command === undefined ? EXIT.usage : EXIT.ok
  }
  if (command === 'init') {
    const { values } = parse(rest, { force: { type: 'boolean' }, dir: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, 'init', false)
    if (values.help) return help(INIT_HELP)
    const dir = resolve(String(values.dir ?? '.'))
    choosePiLine(dir)
    const { init } = await import('./init.js')
    await init({ dir, force: values.force === true, log: (line) => console.log(line) })
    return EXIT.ok
  }
  if (command === 'codegen') {
    const { values, positionals } = parse(
      rest,
      {
        extension: { type: 'string' },
        out: { type: 'string' },
        flag: { type: 'string', multiple: true },
        force: { type: 'boolean' },
        dir: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      'codegen',
      true,
    )
    if (values.help) return help(CODEGEN_HELP)
    if (positionals.length !== 1) throw new CliError(`codegen takes one session file, got ${positionals.length}\n\n${CODEGEN_HELP}`, EXIT.usage)
    const dir = resolve(String(values.dir ?? '.'))
    choosePiLine(dir)
    const { codegen } = await import('./codegen.js')
    const outcome = await codegen({
      dir,
      session: resolve(positionals[0]!),
      extension: values.extension as string | undefined,
      out: values.out as string | undefined,
      flags: parseFlags((values.flag as string[] | undefined) ?? []),
      force: values.force === true,
      log: (line) => console.log(line),
    })
    return outcome
  }
  throw new CliError(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`, EXIT.usage)
}

function help(text: string): number {
  console.log(text)
  return EXIT.ok
}

type Spec = NonNullable<Parameters<typeof parseArgs>[0]>['options']

type Parsed = { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] }

function parse(args: string[], options: Spec, command: string, allowPositionals: boolean): Parsed {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true }) as Parsed
  } catch (error) {
    throw new CliError(`${command}: ${(error as Error).message}\nRun \`vitest-environment-pi ${command} --help\`.`, EXIT.usage)
  }
}

function parseFlags(flags: string[]): Record<string, string | boolean> {
  const values: Record<string, string | boolean> = {}
  for (const flag of flags) {
    const at = flag.indexOf('=')
    if (at === 0) throw new CliError(`--flag ${flag}: name the flag (name=value, or name alone for a boolean)`, EXIT.usage)
    if (at < 0) values[flag] = true
    else values[flag.slice(0, at)] = flag.slice(at + 1)
  }
  return values
}

/** The project's own Pi line when its package.json names one (both may be installed side by side). */
// Read before Pi is imported, which takes seconds: a broken package.json is reported at once.
function choosePiLine(dir: string): void {
  const declared = readProject(dir).declaredPi
  if (declared && !process.env[PI_PACKAGE_ENV]) process.env[PI_PACKAGE_ENV] = declared
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    // What went wrong, in the words of whoever found it; the stack only when asked for.
    console.error(`vitest-environment-pi: ${error instanceof Error ? error.message : String(error)}`)
    if (process.env.DEBUG && error instanceof Error) console.error(error.stack)
    process.exitCode = error instanceof CliError ? error.exitCode : EXIT.failed
  },
)
