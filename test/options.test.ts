// Options are checked before anything starts, and a mistake reads as what to fix: the option, what it
// takes, what it got, and where it was written.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setFileDefaults } from '../environment/defaults.js'
import { pi } from '../environment/plugin.js'
import { createTestSession as createFileSession } from '../environment/sessions.js'
import { createTestSession, settleTempDirs, TIMEOUT, type MockUIOptions } from '../src/index.js'
import { setEnv } from '../src/shared/env.js'

// Written in two parts: Vitest would read the whole phrase in this file as a docblock of its own.
const DOCBLOCK = '@vitest-environment-' + 'options'

describe('createTestSession checks its options', () => {
  it.each([
    [{ mockTool: {} }, 'unknown option "mockTool"; did you mean "mockTools"?'],
    [{ mockTools: 5 }, 'option "mockTools" must be an object of tool names to mocks, got 5 (a number)'],
    [{ mockTools: { bash: 5 } }, 'option "mockTools.bash" must be a result text, a result object { content } or a handler function, got 5 (a number)'],
    [{ mockTools: { 'my-tool': 5 } }, `option "mockTools['my-tool']" must be a result text, a result object { content } or a handler function, got 5 (a number)`],
    [{ mockUI: { confirm: 'yes' } }, 'option "mockUI.confirm" must be a boolean, TIMEOUT, an array of those, or a function, got "yes" (a string)'],
    [{ mockUI: { select: [0, true] } }, `option "mockUI.select[1]" must be an option's text or index, or TIMEOUT, got true (a boolean)`],
    [{ mockUI: { confrim: true } }, 'unknown option "mockUI.confrim"; did you mean "mockUI.confirm"?'],
    [{ mockUI: { strict: 'yes' } }, 'option "mockUI.strict" must be a boolean, got "yes" (a string)'],
    [{ mockUI: { custom: { keys: [], rows: NaN } } }, 'option "mockUI.custom.rows" must be a whole number of character cells (1 or more), got NaN (a number)'],
    [{ mockUI: { custom: { keys: [], columns: -Infinity } } }, 'option "mockUI.custom.columns" must be a whole number of character cells (1 or more), got -Infinity (a number)'],
    [{ mockUI: true }, 'option "mockUI" must be an object of dialog answers, or false, got true (a boolean)'],
    [{ tools: 'bash' }, 'option "tools" must be an array of tool names, got "bash" (a string)'],
    [{ tools: ['bash', 1] }, 'option "tools[1]" must be a tool name (a string), got 1 (a number)'],
    [{ toolExecution: 'bogus' }, 'option "toolExecution" must be "parallel" or "sequential", got "bogus" (a string)'],
    [{ extensions: 'x.ts' }, 'option "extensions" must be an array of extension paths and factory functions, got "x.ts" (a string)'],
    [{ extensions: [42] }, 'option "extensions[0]" must be an extension path (a string) or a factory function (pi) => void, got 42 (a number)'],
    [{ unhandled: 'ignore' }, 'option "unhandled" must be "error", "warn" or "bypass", got "ignore" (a string)'],
    [{ flags: ['plan'] }, 'option "flags" must be an object of flag names to values, got ["plan"] (an array)'],
    [{ flags: { plan: 1 } }, 'option "flags.plan" must be a boolean or a string, got 1 (a number)'],
    [{ extensionLoadTimeout: 0 }, 'option "extensionLoadTimeout" must be a positive number of milliseconds, got 0 (a number)'],
    [{ extensionLoadTimeout: '3s' }, 'option "extensionLoadTimeout" must be a positive number of milliseconds, got "3s" (a string)'],
    [{ propagateErrors: 'no' }, 'option "propagateErrors" must be a boolean, got "no" (a string)'],
    [{ systemPrompt: null }, 'option "systemPrompt" must be a string, got null'],
    [{ root: 42 }, 'option "root" must be a directory path (a string), got 42 (a number)'],
    [{ cwd: {} }, 'option "cwd" must be a directory path (a string), got {} (an object)'],
    [{ cwd: 'no/such/dir' }, 'option "cwd" must be a directory that exists, got "no/such/dir", which does not exist'],
    [{ cwd: 'package.json' }, 'option "cwd" must be a directory that exists, got "package.json", which is a file'],
    [{ importModule: 'vite' }, 'option "importModule" must be a function (absolutePath) => Promise<module>, got "vite" (a string)'],
    [{ mockSpec: 42 }, 'option "mockSpec" must be a mock spec file path (a string) or a pi.ext.mock_spec.v1 object, got 42 (a number)'],
    [{ mocks: [] }, 'option "mocks" must be an object of mock blocks (session, http, exec, tools, ui, events, model), got [] (an array)'],
  ])('rejects %j', async (options, message) => {
    await expect(createTestSession(options as never)).rejects.toThrow(new TypeError(`createTestSession: ${message}`))
  })

  it('lists the options when no name is close', async () => {
    await expect(createTestSession({ banana: 1 } as never)).rejects.toThrow(
      'createTestSession: unknown option "banana"; the options are allowPrograms, cwd, discover, extensionLoadTimeout, extensions, files, flags, home, importModule, mockSpec, mockTools, mockUI, mocks, process, propagateErrors, restartFrom, root, systemPrompt, toolExecution, tools, unhandled',
    )
  })

  it('says so when the options are not an object', async () => {
    await expect(createTestSession('x.ts' as never)).rejects.toThrow('createTestSession: options must be an object, got "x.ts" (a string)')
  })

  it('accepts every kind of dialog answer', async () => {
    const mockUI: MockUIOptions = { confirm: [true, TIMEOUT], select: () => 0, input: undefined, editor: 'text', custom: { any: 'value' }, strict: false }
    const t = await createTestSession({ mockUI, mockTools: { bash: { content: [] }, read: () => 'x', ls: 'a' } })
    await t.dispose()
  })

  it('checks before anything is created: no temp dir, no extension factory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'options-check-'))
    // The session's dirs (its home and cwd) and the file's home go to the OS temp dir: here, a dir only this test uses.
    const restoreEnv = setEnv({ TMPDIR: dir })
    let factoryRuns = 0
    const extensions = [() => void factoryRuns++]
    try {
      await expect(createTestSession({ extensions, mockTool: {} } as never)).rejects.toThrow('unknown option "mockTool"')
      expect({ factoryRuns, created: readdirSync(dir) }).toEqual({ factoryRuns: 0, created: [] })
      // The same session without the typo creates both, so the check above could have seen them.
      const t = await createTestSession({ extensions })
      const kinds = (names: string[]) => [...new Set(names.map((name) => name.replace(/-[^-]+$/, '')))].sort()
      const own = readdirSync(dir)
      expect({ factoryRuns, own: kinds(own), created: kinds(readdirSync(join(dir, own[0]!))) }).toEqual({
        factoryRuns: 1,
        own: ['pi-harness'],
        created: ['file-home', 'session-cwd', 'session-home'],
      })
      await t.dispose()
    } finally {
      // The session's dirs are removed in the background, in this dir: wait for that before removing it.
      await settleTempDirs()
      restoreEnv()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('pi({ ... }) and the per-file options check theirs the same way', () => {
  it('names pi({ ... }) for the plugin\'s options, when the config is read', () => {
    expect(() => pi({ mockTool: {} } as never)).toThrow(new TypeError('pi({ ... }): unknown option "mockTool"; did you mean "mockTools"?'))
    expect(() => pi({ mockTools: { bash: () => 'ok' } } as never)).toThrow('pi({ ... }): option "mockTools.bash" must be a result text (a string), got function bash')
    expect(() => pi({ scripts: ['test', 'lint:fix'] } as never)).toThrow(
      'pi({ ... }): option "scripts[1]" must be "test", "build", "format:check", "lint" or "typecheck", got "lint:fix" (a string)',
    )
    expect(() => pi({ sandbox: { packagedir: '.' } } as never)).toThrow('pi({ ... }): unknown option "sandbox.packagedir"; did you mean "sandbox.packageDir"?')
    expect(() => pi({ sandbox: {} } as never)).toThrow('pi({ ... }): option "sandbox.packageDir" must be the package directory (a string), got undefined')
    expect(() => pi({ isolate: 'no' } as never)).toThrow('pi({ ... }): option "isolate" must be a boolean, got "no" (a string)')
    expect(() => pi({ warmWorkers: 'yes' } as never)).toThrow('pi({ ... }): option "warmWorkers" must be a boolean, got "yes" (a string)')
  })

  it("names environmentOptions.pi for the config's per-file options", async () => {
    const config = pi().config as (config: object) => Promise<void>
    await expect(config({ test: { environmentOptions: { pi: { tools: 'bash' } } } })).rejects.toThrow(
      new TypeError('environmentOptions.pi: option "tools" must be an array of tool names, got "bash" (a string)'),
    )
    // A docblock or a config holds paths only, never factories.
    await expect(config({ test: { environmentOptions: { pi: { extensions: [() => {}] } } } })).rejects.toThrow(
      'environmentOptions.pi: option "extensions[0]" must be an extension path (a string), got a function',
    )
  })

  it("names the test file whose docblock set the options, before the session's own check", async () => {
    // What the pi environment does with a file's options: the file itself tells where they were written.
    setFileDefaults(globalThis, { mockTool: {} } as never)
    const testPath = expect.getState().testPath
    try {
      await expect(createFileSession()).rejects.toThrow('environmentOptions.pi: unknown option "mockTool"; did you mean "mockTools"?')
      expect.setState({ testPath: join(process.cwd(), 'test/fixtures/docblock-options.ts') })
      await expect(createFileSession()).rejects.toThrow(`the ${DOCBLOCK} docblock of test/fixtures/docblock-options.ts: unknown option "mockTool"; did you mean "mockTools"?`)
    } finally {
      expect.setState({ testPath })
      setFileDefaults(globalThis, undefined)
    }
  })
})
