// The command line end to end, as a user runs it from the installed tarball (`npx vitest-environment-pi`):
// `init` in a new extension package, then Vitest passes; `codegen` on recorded sessions, then each generated
// test passes, and fails, naming the turn and step, once the extension decides otherwise. Slow: each part
// installs the packed package and runs Vitest in it.
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { failuresByTitle, installConsumer, ROOT, run, type Consumer } from './support/consumer.js'

const npx = (consumer: Consumer, args: string[]) => run('npx', ['--no-install', 'vitest-environment-pi', ...args], consumer.dir)

describe.each([
  ['TypeScript, ES modules', 'ts-extension', 'test/greeter.test.ts', ['vitest.config.ts', 'tsconfig.json']],
  ['JavaScript, CommonJS, no manifest', 'js-extension', 'test/no-sudo.test.mjs', ['vitest.config.mjs']],
])('init in a new %s package', (_, fixture, testFile, configs) => {
  let consumer: Consumer
  beforeAll(async () => {
    consumer = await installConsumer(`test/fixtures/cli/${fixture}`)
  })
  afterAll(() => consumer?.remove())

  it('writes the config, the types line, a first test and the test script; Vitest passes; a second run changes nothing', async () => {
    const first = await npx(consumer, ['init'])
    expect(first.exitCode, first.outputTail).toBe(0)
    for (const file of [...configs, testFile]) expect(first.outputTail).toMatch(new RegExp(`created +${file.replace('.', '\\.')}`))
    expect(first.outputTail).toContain('added "test": "vitest run"')
    expect(first.outputTail).toContain('Next:')
    const test = readFileSync(join(consumer.dir, testFile), 'utf8')
    expect(test).toContain(fixture === 'ts-extension' ? "expect(t).toHaveRegisteredTool('greet')" : "expect(t).toHaveRegisteredCommand('sudo-policy')")
    expect(JSON.parse(readFileSync(join(consumer.dir, 'package.json'), 'utf8')).scripts.test).toBe('vitest run')
    if (fixture === 'ts-extension') expect(JSON.parse(readFileSync(join(consumer.dir, 'tsconfig.json'), 'utf8')).compilerOptions.types).toContain('vitest-environment-pi')

    const { report } = await consumer.vitest([])
    expect(failuresByTitle(report)).toEqual({})
    expect(report.numPassedTests).toBe(2)

    const snapshot = (files: string[]) => files.map((file) => readFileSync(join(consumer.dir, file), 'utf8'))
    const files = ['package.json', ...configs, testFile]
    const before = snapshot(files)
    const second = await npx(consumer, ['init'])
    expect(second.exitCode, second.outputTail).toBe(0)
    expect(second.outputTail).not.toMatch(/created|updated/)
    expect(snapshot(files)).toEqual(before)
  })

  it('keeps a first test the user changed, unless --force', async () => {
    const file = join(consumer.dir, testFile)
    writeFileSync(file, `${readFileSync(file, 'utf8')}// mine\n`)
    const kept = await npx(consumer, ['init'])
    expect(kept.outputTail).toContain(`kept      ${testFile}: it exists and differs: run with --force to overwrite it`)
    expect(readFileSync(file, 'utf8')).toContain('// mine')
    const forced = await npx(consumer, ['init', '--force'])
    expect(forced.outputTail).toContain(`updated   ${testFile}`)
    expect(readFileSync(file, 'utf8')).not.toContain('// mine')
  })
})

describe('codegen on recorded sessions', () => {
  let consumer: Consumer
  const secret = { key: 'sk-proj-Seeded0123456789abcdefXYZ', bearer: 'seededBearerToken0123456789' }
  /** The session files codegen turns into tests, each with its extension, flags and the step a one-line change breaks. */
  const sessions = [
    { name: 'guard-0.73', file: 'recorded/session-0.73.jsonl', extension: 'recorded/guard.js', flags: [], breaks: 'turn 2, step 1 (session-0.73.jsonl:' },
    { name: 'guard-1.x', file: 'recorded/session-1.x.jsonl', extension: 'recorded/guard.js', flags: [], breaks: 'turn 2, step 1 (session-1.x.jsonl:' },
    { name: 'seeded', file: 'recorded/seeded.jsonl', extension: 'recorded/guard.js', flags: [], breaks: 'turn 2, step 1 (seeded.jsonl:' },
    { name: 'compacted', file: 'recorded/compacted.jsonl', extension: 'recorded/guard.js', flags: [], breaks: 'turn 2, step 1 (compacted.jsonl:' },
    ...['0.73', '1.x'].map((line) => ({
      name: `api-key-${line}`,
      file: `protected-paths/sessions/api-key-${line}.jsonl`,
      extension: 'protected-paths/index.ts',
      flags: ['--flag', 'protected-paths=secrets/'],
      breaks: `turn 1, step 1 (api-key-${line}.jsonl:`,
    })),
  ]
  const outputs: Record<string, string> = {}

  beforeAll(async () => {
    consumer = await installConsumer('test/fixtures/cli/codegen-project')
    const recorded = join(consumer.dir, 'recorded')
    cpSync(join(ROOT, 'test/fixtures/replay'), recorded, { recursive: true })
    cpSync(join(ROOT, 'examples/protected-paths/index.ts'), join(consumer.dir, 'protected-paths/index.ts'))
    cpSync(join(ROOT, 'examples/protected-paths/sessions'), join(consumer.dir, 'protected-paths/sessions'), { recursive: true })
    writeFileSync(join(consumer.dir, 'vitest.config.ts'), "import { defineConfig } from 'vitest/config'\nimport { pi } from 'vitest-environment-pi/plugin'\n\nexport default defineConfig({ plugins: [pi()] })\n")
    const lines = readFileSync(join(recorded, 'session-1.x.jsonl'), 'utf8').trimEnd().split('\n')
    // A secret the user typed, and their home path: neither may reach the test.
    const seeded = lines.map((line) =>
      line.replace('"Run the tests"', JSON.stringify(`Run the tests in /home/alice/app with OPENAI_API_KEY=${secret.key} and Authorization: Bearer ${secret.bearer}`)),
    )
    writeFileSync(join(recorded, 'seeded.jsonl'), `${seeded.join('\n')}\n`)
    // Pi compacted the conversation before turn 3.
    const turn3 = lines.findIndex((line) => line.includes('"Run the tests"'))
    const user = JSON.parse(lines[turn3]!) as { parentId: string }
    const compaction = { type: 'compaction', id: 'compact1', parentId: user.parentId, timestamp: '2026-12-01T09:50:37.946Z', summary: 'Cleaned build.', firstKeptEntryId: user.parentId, tokensBefore: 900 }
    const compacted = [...lines.slice(0, turn3), JSON.stringify(compaction), JSON.stringify({ ...user, parentId: 'compact1' }), ...lines.slice(turn3 + 1)]
    writeFileSync(join(recorded, 'compacted.jsonl'), `${compacted.join('\n')}\n`)
    for (const { name, file, extension, flags } of sessions) {
      const result = await npx(consumer, ['codegen', file, '--extension', extension, '--out', `test/${name}.test.ts`, ...flags])
      outputs[name] = result.outputTail
      if (result.exitCode !== 0) throw new Error(`codegen ${file} exited with ${result.exitCode}:\n${result.outputTail}`)
    }
  })
  afterAll(() => consumer?.remove())

  it('writes tests that pass against the extension as it is', async () => {
    const { report } = await consumer.vitest(['test/'])
    expect(failuresByTitle(report)).toEqual({})
    expect(report.numPassedTests).toBe(sessions.length)
    const guard = readFileSync(join(consumer.dir, 'test/guard-1.x.test.ts'), 'utf8')
    expect(guard).toContain("mockUI: { confirm: [true, false] },")
    expect(guard).toContain("calls('bash', { command: 'sudo rm -rf /var/cache/app' }).then(blocked('turn 2, step 1 (session-1.x.jsonl:13)', 'sudo is not allowed: sudo rm -rf /var/cache/app')),")
    expect(guard).toContain("expect(t).toHaveBlocked('bash', { command: 'rm -rf dist' }, 'Blocked by the user: rm -rf dist')")
  })

  it('redacts the seeded key, bearer token and home path, and says so', () => {
    const test = readFileSync(join(consumer.dir, 'test/seeded.test.ts'), 'utf8')
    for (const leaked of [secret.key, secret.bearer, '/home/alice']) expect(test).not.toContain(leaked)
    expect(test).toContain("when('Run the tests in ~/app with OPENAI_API_KEY=<redacted api-key 1> and Authorization: Bearer <redacted authorization-header 1>'")
    expect(outputs.seeded).toContain('Redacted:\n')
    for (const line of ['home path → ~', 'API key → <redacted api-key 1>', 'Authorization header → <redacted authorization-header 1>']) {
      expect(outputs.seeded).toMatch(new RegExp(`\n  ${line.replace(/[()]/g, '\\$&')} \\(\\d+ places?\\)`))
    }
  })

  it('converts a compacted session up to the compaction, with a note in the output and the test', () => {
    const note = /compacted\.jsonl:\d+: a compaction entry \(Pi's summary of the conversation\): replay does not replay Pi's summaries, so the test covers the session up to that point only/
    expect(outputs.compacted).toMatch(new RegExp(`Note: ${note.source}`))
    const test = readFileSync(join(consumer.dir, 'test/compacted.test.ts'), 'utf8')
    expect(test).toMatch(new RegExp(`// Note: ${note.source}`))
    expect(test).not.toContain("when('Run the tests'")
  })

  it('fails each test, naming the turn and step, after a one-line change to the extension', async () => {
    const edit = (file: string, from: string, to: string) => {
      const path = join(consumer.dir, file)
      const text = readFileSync(path, 'utf8')
      expect(text).toContain(from)
      writeFileSync(path, text.replace(from, to))
    }
    // Both extensions block with another reason now. (Letting sudo run would ask a third confirm, and the
    // run fails on the mockUI queue running out, before any check.)
    edit('recorded/guard.js', 'reason: `sudo is not allowed: ${command}`', 'reason: `sudo is forbidden: ${command}`')
    edit('protected-paths/index.ts', '`${path} is protected (${entry}); ${event.toolName} is not allowed there`', '`${path} is protected (${entry})`')
    const { report } = await consumer.vitest(['test/'])
    const failures = failuresByTitle(report)
    expect(Object.keys(failures)).toHaveLength(sessions.length)
    for (const { name, breaks } of sessions) {
      const failure = failures[`replays ${name.startsWith('api-key') ? `${name}.jsonl` : name === 'guard-0.73' ? 'session-0.73.jsonl' : name === 'guard-1.x' ? 'session-1.x.jsonl' : `${name}.jsonl`} as recorded`]
      expect(failure, name).toContain(breaks)
    }
    expect(Object.values(failures).join('\n')).toContain(
      'turn 2, step 1 (session-1.x.jsonl:13): the extension now blocks bash with "sudo is forbidden: sudo rm -rf /var/cache/app", the recording with "sudo is not allowed: sudo rm -rf /var/cache/app"',
    )
  })
})
