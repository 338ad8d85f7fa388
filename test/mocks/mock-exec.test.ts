import { describe, expect, it } from 'vitest'
import { createExecMock, type ExecMockOptions } from '../../src/mocks/exec.js'
import type { ExecMock } from '../../src/mocks/spec/types.js'
import type { ExecCallRecord } from '../../src/records/records.js'
import { execResultOf, KILLED_CODE } from '../support/pi-line.js'

function harness(mocks: ExecMock, unhandled: ExecMockOptions['unhandled'] = 'error') {
  const records: ExecCallRecord[] = []
  const warnings: string[] = []
  const unhandledErrors: Error[] = []
  const realCalls: unknown[][] = []
  const mock = createExecMock(mocks, {
    unhandled,
    realExec: async (command, args, options) => {
      realCalls.push([command, args, options])
      return execResultOf({ stdout: `real ${command}`, stderr: '', code: 0, killed: false })
    },
    onUnhandled: (error) => unhandledErrors.push(error),
    record: (call) => records.push(call),
    warn: (message) => warnings.push(message),
  })
  return { mock, records, warnings, unhandledErrors, realCalls }
}

const ok = (stdout: string) => execResultOf({ stdout, stderr: '', code: 0, killed: false })

describe('createExecMock matching', () => {
  it('cmd_exact matches the command alone or the whole command line, nothing else', async () => {
    const { mock } = harness({
      rules: [
        { match: { cmd_exact: 'git status --short' }, result: { stdout: 'line' } },
        { match: { cmd_exact: 'git' }, result: { stdout: 'command' } },
      ],
      default_result: { stdout: 'default' },
    })
    expect(await mock.exec('git', ['status', '--short'])).toEqual(ok('line'))
    expect(await mock.exec('git', ['log'])).toEqual(ok('command'))
    expect(await mock.exec('gitk', [])).toEqual(ok('default'))
    expect(await mock.exec('git', ['status'])).toEqual(ok('command'))
  })

  it('cmd_prefix is a prefix of the whole command line', async () => {
    const { mock } = harness({ rules: [{ match: { cmd_prefix: 'npm run' }, result: { stdout: 'run' } }], default_result: { stdout: 'default' } })
    expect(await mock.exec('npm', ['run', 'build'])).toEqual(ok('run'))
    expect(await mock.exec('npm', ['test'])).toEqual(ok('default'))
  })

  it('cmd_pattern is a RegExp tested against the whole command line', async () => {
    const { mock } = harness({ rules: [{ match: { cmd_pattern: '^git (push|pull)\\b' }, result: { stdout: 'sync' } }], default_result: { stdout: 'default' } })
    expect(await mock.exec('git', ['pull', '--rebase'])).toEqual(ok('sync'))
    expect(await mock.exec('git', ['fetch'])).toEqual(ok('default'))
    expect(await mock.exec('echo', ['git push'])).toEqual(ok('default'))
  })

  it('args_contain needs every listed string as a whole arg, together with the command key', async () => {
    const { mock } = harness({
      rules: [{ match: { cmd_exact: 'git', args_contain: ['--short', 'status'] }, result: { stdout: 'short status' } }],
      default_result: { stdout: 'default' },
    })
    expect(await mock.exec('git', ['status', '-b', '--short'])).toEqual(ok('short status'))
    expect(await mock.exec('git', ['status'])).toEqual(ok('default'))
    expect(await mock.exec('git', ['status', '--short=yes'])).toEqual(ok('default'))
    expect(await mock.exec('hg', ['status', '--short'])).toEqual(ok('default'))
  })

  it('first match wins', async () => {
    const { mock } = harness({
      rules: [
        { match: { cmd_prefix: 'git' }, result: { stdout: 'any git' } },
        { match: { cmd_exact: 'git status' }, result: { stdout: 'status' } },
      ],
    })
    expect(await mock.exec('git', ['status'])).toEqual(ok('any git'))
  })

  it('refuses to build a mock with an invalid cmd_pattern, naming the rule', () => {
    expect(() => harness({ rules: [{ match: { cmd_pattern: '[' }, result: {} }] })).toThrow(
      'exec.rules[0].match.cmd_pattern: Invalid regular expression: /[/: Unterminated character class',
    )
  })
})

describe('createExecMock results', () => {
  it('fills the defaults: stdout and stderr empty, code 0, not killed', async () => {
    const { mock } = harness({ rules: [{ match: { cmd_exact: 'true' }, result: {} }] })
    expect(await mock.exec('true', [])).toEqual(execResultOf({ stdout: '', stderr: '', code: 0, killed: false }))
  })

  it('answers with every field a rule gives', async () => {
    const { mock } = harness({ rules: [{ match: { cmd_exact: 'make' }, result: { stdout: 'o', stderr: 'e', code: 2 } }] })
    expect(await mock.exec('make', [])).toEqual(execResultOf({ stdout: 'o', stderr: 'e', code: 2, killed: false }))
  })

  it('answers killed: true with the code Pi reports for a process its timeout or signal killed', async () => {
    const { mock } = harness({
      rules: [
        { match: { cmd_exact: 'sleep 60' }, result: { stdout: 'partial', killed: true } },
        { match: { cmd_exact: 'trapper' }, result: { killed: true, code: 143 } },
      ],
    })
    expect(await mock.exec('sleep', ['60'])).toEqual(execResultOf({ stdout: 'partial', stderr: '', code: KILLED_CODE, killed: true }))
    expect(await mock.exec('trapper', [])).toEqual(execResultOf({ stdout: '', stderr: '', code: 143, killed: true }))
  })

  it('answers from default_result when no rule matches', async () => {
    const { mock, records } = harness({ rules: [{ match: { cmd_exact: 'ls' }, result: {} }], default_result: { stdout: 'fallback', code: 3 } })
    expect(await mock.exec('pwd', [])).toEqual(execResultOf({ stdout: 'fallback', stderr: '', code: 3, killed: false }))
    expect(records.map((r) => r.answeredBy)).toEqual(['exec.default_result'])
  })
})

describe('createExecMock times', () => {
  it('stops using a rule once its times ran out and lists it in the unhandled error distinctly', async () => {
    const { mock, unhandledErrors } = harness({
      rules: [
        { match: { cmd_exact: 'git log' }, result: {} },
        { match: { cmd_prefix: 'git status' }, result: { stdout: 'clean' }, times: 2 },
      ],
    })
    expect(await mock.exec('git', ['status'])).toEqual(ok('clean'))
    expect(await mock.exec('git', ['status'])).toEqual(ok('clean'))
    const message = [
      'Unhandled exec: git status (no rule matched and exec.default_result is not set)',
      '  exec.rules[0] did not match: neither the command nor the command line is "git log"',
      '  exec.rules[1] matched but its times (2) ran out',
    ].join('\n')
    await expect(mock.exec('git', ['status'])).rejects.toThrow(new Error(message))
    expect(unhandledErrors.map((e) => e.message)).toEqual([message])
  })

  it('lists pending rules until they answered their times', async () => {
    const { mock } = harness({
      rules: [
        { match: { cmd_exact: 'a' }, result: {}, times: 2 },
        { match: { cmd_prefix: 'b', args_contain: ['-x'] }, result: {}, times: 1 },
        { match: { cmd_exact: 'c' }, result: {} },
      ],
    })
    await mock.exec('a', [])
    expect(mock.pending()).toEqual([
      { label: 'exec.rules[0]', description: 'cmd_exact "a"', times: 2, uses: 1, line: 'exec.rules[0] (cmd_exact "a") answered 1 of 2 times' },
      {
        label: 'exec.rules[1]',
        description: 'cmd_prefix "b", args_contain ["-x"]',
        times: 1,
        uses: 0,
        line: 'exec.rules[1] (cmd_prefix "b", args_contain ["-x"]) answered 0 of 1 times',
      },
    ])
    await mock.exec('a', [])
    await mock.exec('b', ['-x'])
    expect(mock.pending()).toEqual([])
  })
})

describe('createExecMock unhandled', () => {
  const rules: ExecMock['rules'] = [
    { match: { cmd_exact: 'git log' }, result: {} },
    { match: { cmd_prefix: 'npm ' }, result: {} },
    { match: { cmd_pattern: '^make\\b' }, result: {} },
    { match: { cmd_exact: 'git', args_contain: ['diff', '--stat'] }, result: {} },
  ]
  const message = [
    'Unhandled exec: git diff HEAD (no rule matched and exec.default_result is not set)',
    '  exec.rules[0] did not match: neither the command nor the command line is "git log"',
    '  exec.rules[1] did not match: the command line does not start with "npm "',
    '  exec.rules[2] did not match: the command line does not match /^make\\b/',
    '  exec.rules[3] did not match: the args do not contain "--stat"',
  ].join('\n')

  it("'error' rejects the call and reports an error listing every rule tried and why", async () => {
    const { mock, unhandledErrors, warnings, realCalls } = harness({ rules }, 'error')
    await expect(mock.exec('git', ['diff', 'HEAD'])).rejects.toThrow(new Error(message))
    expect(unhandledErrors.map((e) => e.message)).toEqual([message])
    expect(warnings).toEqual([])
    expect(realCalls).toEqual([])
  })

  it("'error' with no rules says the rule list is empty", async () => {
    const { mock } = harness({}, 'error')
    await expect(mock.exec('ls', ['-la'])).rejects.toThrow(
      new Error('Unhandled exec: ls -la (no rule matched and exec.default_result is not set)\n  (exec.rules is empty)'),
    )
  })

  it("'error' gives every failing condition of a rule, joined", async () => {
    const { mock } = harness({ rules: [{ match: { cmd_prefix: 'git', args_contain: ['-a', '-b'] }, result: {} }] }, 'error')
    await expect(mock.exec('hg', ['-a'])).rejects.toThrow(
      new Error(
        'Unhandled exec: hg -a (no rule matched and exec.default_result is not set)\n' +
          '  exec.rules[0] did not match: the command line does not start with "git"; the args do not contain "-b"',
      ),
    )
  })

  it("'warn' warns and answers as Pi answers a command that cannot be started", async () => {
    const { mock, warnings, unhandledErrors, records } = harness({ rules }, 'warn')
    expect(await mock.exec('git', ['diff', 'HEAD'])).toEqual(execResultOf({ stdout: '', stderr: '', code: 1, killed: false }))
    expect(warnings).toEqual([`${message}\nAnswered as Pi answers a command that cannot be started: code 1, empty stdout and stderr.`])
    expect(unhandledErrors).toEqual([])
    expect(records).toEqual([
      { command: 'git', args: ['diff', 'HEAD'], result: execResultOf({ stdout: '', stderr: '', code: 1, killed: false }), answeredBy: 'unhandled' },
    ])
  })

  it("'bypass' runs the command for real, with its options, silently", async () => {
    const { mock, warnings, unhandledErrors, realCalls, records } = harness({ rules }, 'bypass')
    expect(await mock.exec('git', ['diff', 'HEAD'], { cwd: '/repo', timeout: 5 })).toEqual(ok('real git'))
    expect(realCalls).toEqual([['git', ['diff', 'HEAD'], { cwd: '/repo', timeout: 5 }]])
    expect(warnings).toEqual([])
    expect(unhandledErrors).toEqual([])
    expect(records).toEqual([{ command: 'git', args: ['diff', 'HEAD'], cwd: '/repo', result: ok('real git'), answeredBy: 'real' }])
  })

  it('never reaches unhandled while a default_result is set', async () => {
    const { mock, realCalls, unhandledErrors } = harness({ rules, default_result: {} }, 'bypass')
    expect(await mock.exec('git', ['diff', 'HEAD'])).toEqual(ok(''))
    expect(realCalls).toEqual([])
    expect(unhandledErrors).toEqual([])
  })
})

describe('createExecMock records', () => {
  it('records every call with its args, cwd, result and what answered it', async () => {
    const { mock, records } = harness({
      rules: [{ match: { cmd_exact: 'ls' }, result: { stdout: 'a\nb' }, times: 1 }],
      default_result: { code: 9 },
    })
    const args = ['-1']
    await mock.exec('ls', args, { cwd: '/work' })
    args.push('mutated later')
    await mock.exec('ls', [])
    expect(records).toEqual([
      { command: 'ls', args: ['-1'], cwd: '/work', result: execResultOf({ stdout: 'a\nb', stderr: '', code: 0, killed: false }), answeredBy: 'exec.rules[0]' },
      { command: 'ls', args: [], result: execResultOf({ stdout: '', stderr: '', code: 9, killed: false }), answeredBy: 'exec.default_result' },
    ])
  })

  it('records an unhandled call that was rejected, with the failure shape Pi uses and why', async () => {
    const { mock, records } = harness({}, 'error')
    await expect(mock.exec('x', ['y'])).rejects.toThrow('Unhandled exec: x y ')
    expect(records).toEqual([
      {
        command: 'x',
        args: ['y'],
        result: execResultOf({ stdout: '', stderr: '', code: 1, killed: false }),
        answeredBy: 'unhandled',
        error: 'Unhandled exec: x y (no rule matched and exec.default_result is not set)\n  (exec.rules is empty)',
      },
    ])
  })
})
