// The package as a user gets it: packed, installed into a project, run with `plugins: [pi()]`.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { failuresByTitle, installConsumer, VITEST_MAJOR, type Consumer, type VitestReport } from './support/consumer.js'
import { CURRENT_LINE } from './support/pi-line.js'
import { PI_BUNDLE_ENV } from '../src/pi/bundled.js'

let consumer: Consumer
beforeAll(async () => {
  consumer = await installConsumer('test/consumer')
}, 300_000)
afterAll(() => consumer?.remove())

const passedAll = (report: VitestReport) => ({ passed: report.numPassedTests, failed: report.numFailedTests })

describe('a consumer project with plugins: [pi()]', () => {
  for (const pool of ['forks', 'threads', 'vmThreads', 'vmForks']) {
    if (pool.startsWith('vm') && CURRENT_LINE && VITEST_MAJOR < 5) {
      // Pi 1.x's own files import JSON modules, which Vitest 4's VM pools cannot link (the bundle has them
      // inlined): without pi() and its bundle, the environment says so at once.
      it(`names the ${pool} pool's limit with Pi 1.x's own files on Vitest 4 instead of a linker error`, async () => {
        // Not this run's bundle either: the consumer's Pi is this checkout's, linked in.
        const { result, report } = await consumer.vitest(['--config=vitest.noplugin.config.ts', 'tests/snapshot.test.ts', `--pool=${pool}`, '--reporter=default'], {
          [PI_BUNDLE_ENV]: undefined,
        })
        expect(result.status).toBe('failed')
        expect(report.numTotalTests).toBe(0)
        expect(result.outputTail).toContain('imported from its own files cannot run in Vitest 4')
        expect(result.outputTail).toContain(
          "VM pools (vmThreads, vmForks): Vitest 4 builds the JSON modules Pi 1.x imports outside the test's VM context, where Node cannot link them. Use pi() with its bundle of Pi (the default; not bundlePi: false), the forks or threads pool, or Vitest 5.",
        )
      })
    }
    it(`passes its suite in the ${pool} pool, leaving no temp dir behind`, async () => {
      // The sessions' dirs are made ahead and removed in the background; each file waits for them at its end.
      const tmp = join(dirname(consumer.dir), `tmp-${pool}`)
      mkdirSync(tmp)
      const { report } = await consumer.vitest(['tests/', `--pool=${pool}`], { TMPDIR: tmp })
      expect(failuresByTitle(report)).toEqual({})
      expect(passedAll(report)).toEqual({ passed: 17, failed: 0 })
      expect(readdirSync(tmp).filter((name) => name.startsWith('pi-'))).toEqual([])
    })
  }

  it("passes without the plugin: environment 'pi' and the setup file", async () => {
    // Vitest replaces the config's options with a docblock's, so the docblock file runs without the
    // config's extension here; that file is left out.
    const { report } = await consumer.vitest(['--config=vitest.noplugin.config.ts', 'tests/', '--exclude=tests/docblock.test.ts'])
    expect(failuresByTitle(report)).toEqual({})
    expect(passedAll(report)).toEqual({ passed: 16, failed: 0 })
  })

  it('keeps its committed snapshots on two runs (ids, times and temp paths normalised)', async () => {
    for (let run = 0; run < 2; run++) {
      const { report } = await consumer.vitest(['tests/snapshot.test.ts'])
      expect(report.snapshot).toMatchObject({ added: 0, updated: 0, unmatched: 0, matched: 3, filesAdded: 0, filesUpdated: 0 })
    }
  })

  it('prints what happened instead when a matcher fails', async () => {
    const { report } = await consumer.vitest(['failing/'])
    const failures = failuresByTitle(report)
    expect(Object.keys(failures)).toHaveLength(18)
    expect(failures['toHaveCalledTool with params that never matched']).toContain(
      [
        'Expected bash to be called with {"command": "git stash"}.',
        '',
        'bash was called 3 time(s), never with matching params:',
        '  1. bash({"command": "ls"})',
        '  2. bash({"command": "git status", "timeout": 10})',
        '  3. bash({"command": "rm -rf /"}) [blocked: rm -rf is not allowed]',
        '',
        'Session timeline:',
        '  turn 1: "work"',
        '›   bash({"command": "ls"}) → "ran ls"',
        '›   bash({"command": "git status", "timeout": 10}) → "ran git status"',
        '    write({"content": "hello", "path": "out.txt"}) → "written"',
        '    notify("dangerous command blocked", "warning")',
        '›   bash({"command": "rm -rf /"}) → blocked: "rm -rf is not allowed"',
        '    said "done"',
        '',
        'Diff against the closest call:',
      ].join('\n'),
    )
    expect(failures['toHaveCalledTool of a tool never called']).toContain(
      'edit was never called. Tools called (4):\n  1. bash({"command": "ls"})\n  2. bash({"command": "git status", "timeout": 10})\n  3. write({"content": "hello", "path": "out.txt"})',
    )
    expect(failures['not.toHaveCalledTool of a tool that was called']).toContain(
      'Expected write not to be called.\n\nIt was called 1 time(s) that way:\n  1. write({"content": "hello", "path": "out.txt"})',
    )
    expect(failures['toHaveCalledToolTimes']).toContain('Expected bash to be called 2 time(s).\n\nbash was called 3 time(s):')
    expect(failures['toHaveCalledToolsInOrder']).toContain(
      'Only write → bash matched in order; missing from there: write.\nCall sequence: bash → bash → write → bash',
    )
    expect(failures['toHaveBlocked of a tool that ran']).toContain(
      'Expected write to be blocked.\n\nwrite was not blocked: it ran and returned\n  1. write({"content": "hello", "path": "out.txt"}) → "written"',
    )
    expect(failures['toHaveBlocked with another reason']).toContain(
      'Expected bash to be blocked with a reason matching "sudo".\n\nbash was blocked, but for other reasons:\n  1. "rm -rf is not allowed"',
    )
    expect(failures['not.toHaveBlocked of a blocked tool']).toContain(
      'Expected bash not to be blocked.\n\nIt was blocked 1 time(s):\n  1. bash({"command": "rm -rf /"}) [blocked: rm -rf is not allowed]',
    )
    expect(failures['toHaveToolResult']).toContain(
      'Expected a result of write matching {"isError": true, "text": "failed"}.\n\nwrite returned:\n  1. ok (mocked): "written"',
    )
    expect(failures['toHaveNotified']).toContain(
      'Expected a notification matching "all clear".\n\nCalls made:\n  1. notify("dangerous command blocked", "warning")',
    )
    expect(failures['toHavePrompted']).toContain('Expected a select dialog titled "Mode?".\n\nThere was no dialog.')
    expect(failures['toHaveSetStatus']).toContain('Expected status "guard" set to "mode: strict".\n\nThere was no status set.')
    expect(failures['toHaveSaid']).toContain('Expected the model to say "finished".\n\nThe model said:\n  1. "done"')
    expect(failures['toHaveSentToModel']).toContain(
      [
        'Expected some model request to contain "secret".',
        '',
        "The model was asked 5 time(s). The last request's messages:",
        '  1. user: "work"',
        '  2. user: "The guard extension is active."',
        '  3. assistant: bash({"command": "ls"})',
        '  4. toolResult: "ran ls"',
      ].join('\n'),
    )
    expect(failures['toHaveRegisteredTool']).toContain(
      `Expected a tool named deploy.\n\nTools: read, bash, ${CURRENT_LINE ? 'powershell, ' : ''}edit, write, grep, find, ls, greet`,
    )
    expect(failures['not.toHaveRegisteredCommand']).toContain('Expected no command /mode.\n\nCommands: /mode')
    expect(failures['an unhandled exec the test never awaited']).toContain(
      'Unhandled exec: git status (no rule matched and exec.default_result is not set)\n  (exec.rules is empty)',
    )
    expect(failures['an invalid receiver']).toContain(
      'expect(received).toHaveCalledTool(): received must be a test session or its events, got an object with keys nope',
    )
  })

  it('shows Vitest\'s diff against the closest call', async () => {
    const { result } = await consumer.vitest(['failing/', '-t', 'params that never matched', '--reporter=default'])
    expect(result.outputTail).toMatch(/Diff against the closest call:\s+- Expected\s+\+ Received\s+\{\s+-\s+"command": "git stash",\s+\+\s+"command": "ls",\s+\}/)
  })

  for (const provider of ['v8', 'istanbul']) {
    it(`reports exact ${provider} coverage of extension code loaded by createTestSession`, async () => {
      const reportsDirectory = `coverage-${provider}`
      const { report } = await consumer.vitest([
        'tests/coverage.test.ts',
        '--coverage.enabled',
        `--coverage.provider=${provider}`,
        `--coverage.reportsDirectory=${reportsDirectory}`,
      ])
      expect(passedAll(report)).toEqual({ passed: 1, failed: 0 })
      const coverage = JSON.parse(readFileSync(join(consumer.dir, reportsDirectory, 'coverage-final.json'), 'utf8')) as Record<
        string,
        { fnMap: Record<string, { name: string }>; f: Record<string, number> }
      >
      const hits = (file: string) => {
        const entry = coverage[join(consumer.dir, 'extensions', file)]!
        return Object.fromEntries(Object.entries(entry.fnMap).map(([id, fn]) => [fn.name, entry.f[id]]))
      }
      // One session, three reads: classify runs once per read, neverCalled never.
      expect(hits('paths.ts')).toEqual({ classify: 3, neverCalled: 0 })
      expect(hits('guard.ts')).toMatchObject({ guard: 1 })
    })
  }

  it('types the matchers through tsconfig `types`, and rejects wrong arguments', async () => {
    const typed = await consumer.tsc()
    expect(typed.outputTail).toBe('')
    expect(typed.status).toBe('passed')
    // The same file without the tsconfig line: the matchers are unknown.
    const untyped = await consumer.tsc('tsconfig.notypes.json')
    expect(untyped.status).toBe('failed')
    // Vitest 4 names the type Assertion<{ events: unknown; }>, Vitest 5 Assertion<void, { events: unknown; }>.
    expect(untyped.outputTail).toMatch(/Property 'toHaveCalledTool' does not exist on type 'Assertion<(void, )?\{ events: unknown; \}>'/)
  })
})
