// The command line's generators, without Pi: the config and tsconfig edits init makes, the redaction codegen
// applies, how a session file is read up to what replay cannot replay, and the commands' errors and codes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { addPluginToConfig, newVitestConfig } from '../src/cli/vitest-config.js'
import { addTypesEntry } from '../src/cli/tsconfig-types.js'
import { Redactor } from '../src/cli/redact.js'
import { readRecording } from '../src/cli/recording.js'
import { literal, quote } from '../src/cli/source.js'
import { ROOT, run } from './support/consumer.js'

const work = mkdtempSync(join(tmpdir(), 'vitest-pi-cli-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('init: the Vitest config', () => {
  it('adds the import and plugins: [pi()] to a simple defineConfig', () => {
    const before = ["import { defineConfig } from 'vitest/config'", '', 'export default defineConfig({', '  test: { include: ["x"] },', '})', ''].join('\n')
    const after = addPluginToConfig(before)
    expect(after).toEqual({
      text: [
        "import { defineConfig } from 'vitest/config'",
        "import { pi } from 'vitest-environment-pi/plugin'",
        '',
        'export default defineConfig({',
        '  plugins: [pi()],',
        '  test: { include: ["x"] },',
        '})',
        '',
      ].join('\n'),
    })
    // Run twice, it changes nothing.
    expect(addPluginToConfig((after as { text: string }).text)).toEqual(after)
  })

  it('adds pi() to an existing plugins array, after a multi-line import, keeping the quotes and semicolons', () => {
    const before = ['import {', '  defineConfig,', '} from "vitest/config";', 'import react from "react";', '', 'export default defineConfig({ plugins: [react()] });', ''].join('\n')
    expect(addPluginToConfig(before)).toEqual({
      text: ['import {', '  defineConfig,', '} from "vitest/config";', 'import react from "react";', 'import { pi } from "vitest-environment-pi/plugin";', '', 'export default defineConfig({ plugins: [pi(), react()] });', ''].join('\n'),
    })
  })

  it('fills an empty defineConfig({})', () => {
    expect(addPluginToConfig("import { defineConfig } from 'vitest/config'\nexport default defineConfig({})\n")).toEqual({
      text: "import { defineConfig } from 'vitest/config'\nimport { pi } from 'vitest-environment-pi/plugin'\nexport default defineConfig({ plugins: [pi()] })\n",
    })
  })

  it.each([
    ['a function config', "import { defineConfig } from 'vitest/config'\nexport default defineConfig(({ mode }) => ({ test: {} }))\n", 'it has no defineConfig({ ... })'],
    ['CommonJS', "const { defineConfig } = require('vitest/config')\nmodule.exports = defineConfig({})\n", 'it is CommonJS, and the plugin is an ES module'],
    ['plugins built elsewhere', "import { defineConfig } from 'vitest/config'\nconst plugins = []\nexport default defineConfig({ plugins })\n", 'its plugins are not one plain array'],
    ['a merged config', "import { defineConfig, mergeConfig } from 'vitest/config'\nexport default mergeConfig(defineConfig({}), defineConfig({}))\n", 'it has several defineConfig({ ... })'],
  ])('leaves %s as it is, saying why', (_, text, problem) => {
    expect(addPluginToConfig(text)).toEqual({ problem })
  })

  it('creates the config of the README', () => {
    expect(newVitestConfig()).toBe("import { defineConfig } from 'vitest/config'\nimport { pi } from 'vitest-environment-pi/plugin'\n\nexport default defineConfig({ plugins: [pi()] })\n")
  })
})

describe('init: tsconfig.json', () => {
  it('adds the types entry to plain JSON, keeping its indentation and Node\'s types', () => {
    const after = addTypesEntry('{\n    "compilerOptions": { "strict": true }\n}\n', true)
    expect(after).toEqual({ text: '{\n    "compilerOptions": {\n        "strict": true,\n        "types": [\n            "node",\n            "vitest-environment-pi"\n        ]\n    }\n}\n' })
    expect(addTypesEntry((after as { text: string }).text, true)).toEqual(after)
  })

  it('edits a tsconfig with comments only in its one "types" list', () => {
    const text = '{\n  // mine\n  "compilerOptions": { "types": ["node"] },\n}\n'
    expect(addTypesEntry(text, true)).toEqual({ text: '{\n  // mine\n  "compilerOptions": { "types": ["vitest-environment-pi", "node"] },\n}\n' })
    expect(addTypesEntry('{\n  // mine\n  "compilerOptions": {},\n}\n', true)).toEqual({
      problem: 'it is not plain JSON (comments?) and has no single "types" list to add to',
    })
  })
})

describe('codegen: redaction', () => {
  const secrets = {
    anthropic: 'sk-ant-api03-AbCdEf0123456789xyz',
    github: 'ghp_0123456789abcdefghijABCDEFGHIJ',
    bearer: 'eyJhbGciOi.LongBearerToken0123',
    password: 'hunter2hunter2',
  }
  const seeded = {
    prompt: `Use ${secrets.anthropic} and push with ${secrets.github}`,
    params: { command: `curl -H "Authorization: Bearer ${secrets.bearer}" https://api.example.com`, cwd: '/home/alice/project' },
    result: `DB_PASSWORD=${secrets.password}\nread /Users/alice/.npmrc`,
  }

  it('replaces every seeded secret and home path, the same secret by the same placeholder, and lists them without the secrets', () => {
    const redactor = new Redactor('/home/alice')
    const out = redactor.value(seeded)
    const written = JSON.stringify(out)
    for (const secret of [...Object.values(secrets), '/home/alice', '/Users/alice']) expect(written).not.toContain(secret)
    expect(out.prompt).toBe('Use <redacted api-key 1> and push with <redacted token 1>')
    expect(out.params).toEqual({ command: 'curl -H "Authorization: Bearer <redacted authorization-header 1>" https://api.example.com', cwd: '~/project' })
    expect(out.result).toBe('DB_PASSWORD=<redacted secret-value 1>\nread ~/.npmrc')
    expect(redactor.value(`again ${secrets.anthropic}`)).toBe('again <redacted api-key 1>')
    const report = redactor.report()
    expect(report.sort()).toEqual([
      'API key → <redacted api-key 1> (2 places)',
      'Authorization header → <redacted authorization-header 1> (1 place)',
      'home path → ~ (2 places)',
      'secret value → <redacted secret-value 1> (1 place)',
      'token → <redacted token 1> (1 place)',
    ])
    expect(report.join('\n')).not.toContain('hunter2')
  })

  it('redacts a bearer token outside any header, and a secret used as an object key', () => {
    const redactor = new Redactor('/home/alice')
    expect(redactor.text('sent Bearer abcdefgh1234')).toBe('sent Bearer <redacted bearer-token 1>')
    expect(redactor.value({ '/home/alice/notes': 1 })).toEqual({ '~/notes': 1 })
  })

  it('leaves text without secrets as it is', () => {
    const redactor = new Redactor('/home/alice')
    expect(redactor.value({ command: 'rm -rf build', token_count: 3 })).toEqual({ command: 'rm -rf build', token_count: 3 })
    expect(redactor.report()).toEqual([])
  })
})

describe('codegen: reading the session', () => {
  const fixture = (line: string) => join(ROOT, `test/fixtures/replay/session-${line}.jsonl`)

  it.each(['0.73', '1.x'])("reads Pi %s's file as replay() does: turns, steps, and how each call went", (line) => {
    const { turns, notes } = readRecording(fixture(line))
    expect(notes).toEqual([])
    expect(turns.map((turn) => turn.prompt)).toEqual(['Clean the build and tell me what is stale', 'Also clear dist and the system cache', 'Run the tests', 'Try again'])
    const secondTurn = turns[1]!.steps[0]!
    expect(secondTurn.kind === 'message' && secondTurn.blocks.map((block) => (block.kind === 'call' ? [block.call.params.command, block.call.outcome] : block.kind))).toEqual([
      'say',
      ['rm -rf dist', line === '1.x' ? 'not run' : 'ran or not run'],
      ['sudo rm -rf /var/cache/app', line === '1.x' ? 'not run' : 'ran or not run'],
    ])
    expect(turns[3]!.steps).toEqual([{ kind: 'message', blocks: [{ kind: 'fail', message: '529 overloaded' }] }])
  })

  it('reads a session up to a compaction, and says so with the line', () => {
    const lines = readFileSync(fixture('1.x'), 'utf8').trimEnd().split('\n')
    // A compaction after turn 2's answer; turn 3 goes on from it.
    const turn3 = lines.findIndex((text) => text.includes('"Run the tests"'))
    const before = JSON.parse(lines[turn3]!) as { parentId: string }
    const compaction = { type: 'compaction', id: 'compact1', parentId: before.parentId, timestamp: '2026-12-01T09:50:37.946Z', summary: 'Cleaned build.', firstKeptEntryId: before.parentId, tokensBefore: 1000 }
    lines.splice(turn3, 1, JSON.stringify(compaction), JSON.stringify({ ...JSON.parse(lines[turn3]!), parentId: 'compact1' }))
    const file = join(work, 'compacted.jsonl')
    writeFileSync(file, `${lines.join('\n')}\n`)
    const { turns, notes } = readRecording(file)
    expect(turns.map((turn) => turn.prompt)).toEqual(['Clean the build and tell me what is stale', 'Also clear dist and the system cache'])
    expect(notes).toEqual([
      `compacted.jsonl:${turn3 + 1}: a compaction entry (Pi's summary of the conversation): replay does not replay Pi's summaries, so the test covers the session up to that point only`,
    ])
  })

  it('notes the entries on other branches', () => {
    const lines = readFileSync(fixture('1.x'), 'utf8').trimEnd().split('\n')
    const user = JSON.parse(lines.find((text) => text.includes('"Try again"'))!) as { parentId: string }
    // An abandoned branch: another prompt from the same parent, written before the kept one.
    const abandoned = { type: 'message', id: 'branch1', parentId: user.parentId, timestamp: '2026-12-01T09:50:37.971Z', message: { role: 'user', content: [{ type: 'text', text: 'no' }], timestamp: 1 } }
    const at = lines.findIndex((text) => text.includes('"Try again"'))
    lines.splice(at, 0, JSON.stringify(abandoned))
    const file = join(work, 'branched.jsonl')
    writeFileSync(file, `${lines.join('\n')}\n`)
    expect(readRecording(file).notes).toEqual([
      '1 entries of branched.jsonl are on other branches (/tree, /fork): the test follows the branch that ends at the last entry, as Pi resumes the session',
    ])
  })
})

describe('codegen: source', () => {
  it('writes values as a person would', () => {
    expect(quote("it's")).toBe('"it\'s"')
    expect(quote('a\nb \'c\' "d"')).toBe('\'a\\nb \\\'c\\\' "d"\'')
    expect(literal({ command: 'ls', 'dry-run': true, n: [1, null] })).toBe("{ command: 'ls', 'dry-run': true, n: [1, null] }")
  })
})

describe('the command line', () => {
  const cli = (...args: string[]) => run(process.execPath, [join(ROOT, 'dist/src/cli/main.js'), ...args], work, { timeoutMs: 60_000 })

  it('prints its help with exit code 0, and its usage with 2 when no command is given', async () => {
    const help = await cli('--help')
    expect(help.exitCode).toBe(0)
    expect(help.outputTail).toContain('codegen <session.jsonl>')
    for (const command of ['init', 'codegen']) {
      const own = await cli(command, '--help')
      expect(own.exitCode).toBe(0)
      expect(own.outputTail).toContain(`Usage: vitest-environment-pi ${command}`)
    }
    expect((await cli()).exitCode).toBe(2)
  })

  it('answers a wrong command line with exit code 2, naming what is wrong', async () => {
    const unknown = await cli('initialize')
    expect([unknown.exitCode, unknown.outputTail]).toEqual([2, expect.stringContaining('unknown command "initialize"')])
    const option = await cli('init', '--forse')
    expect([option.exitCode, option.outputTail]).toEqual([2, expect.stringContaining("init: Unknown option '--forse'")])
    const twoFiles = await cli('codegen', 'a.jsonl', 'b.jsonl')
    expect([twoFiles.exitCode, twoFiles.outputTail]).toEqual([2, expect.stringContaining('codegen takes one session file, got 2')])
  })

  it('names the file and line of a problem, with exit code 1', async () => {
    writeFileSync(join(work, 'package.json'), '{\n  "name": "x",\n  "type": "module",,\n}\n')
    const init = await cli('init')
    expect(init.exitCode).toBe(1)
    expect(init.outputTail).toMatch(/vitest-environment-pi: .*package\.json:3: not valid JSON/)
    writeFileSync(join(work, 'package.json'), '{ "name": "x", "type": "module" }\n')
    writeFileSync(join(work, 'broken.jsonl'), `${readFileSync(fixture('1.x'), 'utf8').split('\n').slice(0, 4).join('\n')}\n{not json\n`)
    const codegen = await cli('codegen', 'broken.jsonl', '--extension', 'nothing.js')
    expect(codegen.exitCode).toBe(1)
    expect(codegen.outputTail).toMatch(/broken\.jsonl:5: not JSON/)
  })
})

function fixture(line: string): string {
  return join(ROOT, `test/fixtures/replay/session-${line}.jsonl`)
}
