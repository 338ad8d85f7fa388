// The package as a user installs it: a good Pi package passes, each classic packaging bug fails with its cause.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { calls, says, when } from '../../src/model/script.js'
import { verifySandboxInstall, type SandboxStepEvent } from '../../src/project/sandbox.js'
import { FAST_INSTALL, leftovers, PACKAGES, removeTempParents, tempParent } from './support.js'
import { CURRENT_LINE } from '../support/pi-line.js'

afterAll(removeTempParents)

describe('a good Pi package', () => {
  it('packs, installs, loads through Pi, meets expect and passes its smoke playbook', async () => {
    const tempDir = tempParent()
    const events: SandboxStepEvent[] = []
    const result = await verifySandboxInstall({
      packageDir: join(PACKAGES, 'good'),
      ...FAST_INSTALL,
      tempDir,
      expect: { extensions: 1, tools: ['greet'], skills: 1 },
      smoke: {
        mockTools: { bash: 'ok' },
        script: [when('Greet Ada', [calls('greet', { name: 'Ada' }), says('Done.')])],
      },
      onStep: (event) => events.push(event),
    })

    expect(result).toHavePassed()
    expect(result).toMatchObject({
      status: 'passed',
      packageName: 'pi-sandbox-good',
      version: '1.0.0',
      tarball: 'pi-sandbox-good-1.0.0.tgz',
      loaded: { extensions: ['extensions/greet.js'], tools: ['greet'], skills: ['greeting'], extensionErrors: [] },
      problems: [],
    })
    // The tool ran for real inside the installed copy, its `typebox` import answered by Pi as in production.
    expect(result.smoke!.events.toolResultsFor('greet')).toMatchObject([{ text: 'Hello, Ada!', isError: false, mocked: false }])
    expect(result.steps.map((s) => `${s.step}: ${s.status}`)).toEqual([
      'npm pack: passed',
      'npm install: passed',
      'load: passed',
      'expect: passed',
      'smoke: passed',
    ])
    expect(events.map((e) => `${e.phase} ${e.step}${e.status ? ` ${e.status}` : ''}`)).toEqual([
      'start npm pack',
      'end npm pack passed',
      'start npm install',
      'end npm install passed',
      'start load',
      'end load passed',
      'start expect',
      'end expect passed',
      'start smoke',
      'end smoke passed',
    ])
    expect(leftovers(tempDir)).toEqual([])
  })

  it('fails on expectations it does not meet, naming an unlisted tool too', async () => {
    const result = await verifySandboxInstall({
      packageDir: join(PACKAGES, 'good'),
      ...FAST_INSTALL,
      expect: { extensions: 2, tools: ['wave'], skills: 0 },
    })
    expect(result.status).toBe('failed')
    expect(result.problems).toEqual([
      'expect: expected 2 extension(s), Pi loaded 1: extensions/greet.js',
      'expect: expected tool(s) not registered: wave (registered: greet)',
      'expect: registered tool(s) that expect.tools does not list: greet (list every tool the package ships)',
      'expect: expected 0 skill(s), Pi found 1: greeting',
    ])
    let message = ''
    try {
      expect(result).toHavePassed()
    } catch (error) {
      message = (error as Error).message
    }
    expect(message.replace(/\(\d+\.\d+s\)/g, '(…s)')).toContain(
      [
        'Expected the sandbox install of pi-sandbox-good to pass.',
        '',
        'It failed: npm pack passed (…s), npm install passed (…s), load passed (…s), expect failed (…s).',
        'Problems:',
        '  1. expect: expected 2 extension(s), Pi loaded 1: extensions/greet.js',
        '  2. expect: expected tool(s) not registered: wave (registered: greet)',
        '  3. expect: registered tool(s) that expect.tools does not list: greet (list every tool the package ships)',
        '  4. expect: expected 0 skill(s), Pi found 1: greeting',
      ].join('\n'),
    )
  })

  it('fails a smoke playbook whose tool call ends in an error', async () => {
    const result = await verifySandboxInstall({
      packageDir: join(PACKAGES, 'good'),
      ...FAST_INSTALL,
      smoke: { script: [when('Greet', [calls('wave', {}), says('Done.')])] },
    })
    expect(result.status).toBe('failed')
    expect(result.problems).toEqual(['smoke: tool wave returned an error at playbook step 1: Tool wave not found'])
    expect(result.steps.at(-1)).toMatchObject({ step: 'smoke', status: 'failed' })
  })

  it('fails a smoke whose session cannot start, with the reason', async () => {
    const result = await verifySandboxInstall({
      packageDir: join(PACKAGES, 'good'),
      ...FAST_INSTALL,
      smoke: { mockTools: { deploy: 'ok' }, script: [when('Greet', [says('Hi.')])] },
    })
    expect(result.problems).toEqual([
      `smoke: the session did not start: mockTools names no tool: "deploy". Known tools: bash, edit, find, greet, grep, ls, ${CURRENT_LINE ? 'powershell, ' : ''}read, write`,
    ])
    expect(result.steps.at(-1)).toMatchObject({ step: 'smoke', status: 'failed' })
  })
})

describe('a broken Pi package fails with the cause', () => {
  it('a source file missing from "files"', async () => {
    const result = await verifySandboxInstall({ packageDir: join(PACKAGES, 'missing-file'), ...FAST_INSTALL, smoke: { script: [] } })
    expect(result.status).toBe('failed')
    expect(result.loaded.extensions).toEqual([])
    expect(result.problems).toEqual([
      'load: the pi manifest lists extension "extensions/farewell.js", which is not in the installed package (it exists in packageDir: add it to "files" in package.json)',
      `load: extensions/greet.js: Failed to load extension: Cannot find module './format.js' (extensions/format.js exists in packageDir but is not in the tarball: add it to "files" in package.json)`,
      'smoke: not run: the package did not load',
    ])
    expect(result.steps.map((s) => `${s.step}: ${s.status}`)).toEqual([
      'npm pack: passed',
      'npm install: passed',
      'load: failed',
      'expect: skipped',
      'smoke: skipped',
    ])
  })

  it('a bad "exports" entry', async () => {
    const result = await verifySandboxInstall({ packageDir: join(PACKAGES, 'bad-exports'), ...FAST_INSTALL, expect: { tools: ['echo'] } })
    expect(result.status).toBe('failed')
    // Pi loads the extension (it does not use exports); a user importing the package by name would not.
    expect(result.loaded.tools).toEqual(['echo'])
    expect(result.problems).toHaveLength(1)
    expect(result.problems[0]).toMatch(
      /^load: import "pi-sandbox-bad-exports" from a project that installed it resolves to \/.*\/node_modules\/pi-sandbox-bad-exports\/dist\/index\.js, which is not in the installed package$/,
    )
  })

  it('a dependency it does not declare', async () => {
    const result = await verifySandboxInstall({ packageDir: join(PACKAGES, 'missing-dependency'), ...FAST_INSTALL, expect: { tools: ['strip_ansi'] } })
    expect(result.status).toBe('failed')
    expect(result.problems).toEqual([
      `load: extensions/strip.js: Failed to load extension: Cannot find module 'ansi-regex' ("ansi-regex" is not in the package's dependencies)`,
      'expect: expected tool(s) not registered: strip_ansi (registered: none)',
    ])
  })
})

describe('options', () => {
  it('rejects a timeout out of range and a bad npmCommand before doing anything', async () => {
    const tempDir = tempParent()
    await expect(verifySandboxInstall({ packageDir: join(PACKAGES, 'good'), timeoutMs: 50, tempDir })).rejects.toThrow(
      'timeoutMs must be an integer from 100 to 600000, got 50',
    )
    await expect(verifySandboxInstall({ packageDir: join(PACKAGES, 'good'), npmCommand: [], tempDir })).rejects.toThrow(
      'npmCommand must be a non-empty array of non-empty strings',
    )
    await expect(verifySandboxInstall({ packageDir: join(PACKAGES, 'nope'), tempDir })).rejects.toThrow(
      /packageDir must be a directory with a package\.json; .*nope\/package\.json cannot be read/,
    )
    expect(leftovers(tempDir)).toEqual([])
  })
})
