import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { calls, createTestSession, parallel, says, when } from 'vitest-environment-pi'

// A tiny npm project: a passing test script, a failing lint, a build slow enough to overlap.
const project = mkdtempSync(join(tmpdir(), 'run-project-tests-'))
writeFileSync(
  join(project, 'package.json'),
  JSON.stringify({
    name: 'tiny',
    private: true,
    scripts: {
      test: `node -e "console.log('3 tests passed')"`,
      lint: `node -e "console.error('src/a.js: 1 problem'); process.exit(1)"`,
      build: `node -e "setTimeout(() => console.log('built'), 1000)"`,
    },
  }),
)
afterAll(() => rmSync(project, { recursive: true, force: true }))

const tool = { extensions: ['./run-project-tests/index.ts'], cwd: project }

describe('run_project_tests', () => {
  it('runs the test script by default in the workspace and shows the run in the status line', async () => {
    const t = await createTestSession(tool)
    await t.run(when('run the tests', [calls('run_project_tests', {}), says('They pass.')]))
    expect(t).toHaveToolResult('run_project_tests', { text: /^npm run test: passed \(exit code 0\) in \d+\.\ds\ncwd: /, isError: false })
    expect(t).toHaveToolResult('run_project_tests', { text: `cwd: ${project}\n` })
    expect(t).toHaveToolResult('run_project_tests', { text: /untrusted text from the project\):\n[^]*\n3 tests passed$/ })
    expect(t).toHaveSetStatus('run_project_tests', `npm run test running · ${project}`)
    expect(t).toHaveSetStatus('run_project_tests', new RegExp(`^npm run test passed \\(exit code 0\\) in \\d+\\.\\ds · ${project}$`))
  })

  it('reports a failing script with its exit code and output', async () => {
    const t = await createTestSession(tool)
    await t.run(when('lint', [calls('run_project_tests', { script: 'lint' }), says('Lint fails.')]))
    expect(t).toHaveToolResult('run_project_tests', { text: /^npm run lint: failed \(exit code 1\)/, isError: false })
    expect(t).toHaveToolResult('run_project_tests', { text: 'src/a.js: 1 problem' })
    expect(t).toHaveToolResult('run_project_tests', { details: { script: 'lint', status: 'failed', exitCode: 1, cwd: project } })
    expect(t).toHaveSetStatus('run_project_tests', /^npm run lint failed/)
  })

  it('accepts only the five script names', async () => {
    const t = await createTestSession(tool)
    await t.run(when('deploy', [calls('run_project_tests', { script: 'deploy' }), says('Not allowed.')]))
    // Pi validates the arguments against the schema before the tool runs (its wording differs by Pi line).
    expect(t).toHaveToolResult('run_project_tests', { isError: true, text: /script: (must be equal to one of the allowed values|expected one of \["test","build")/ })
    expect(t).not.toHaveSetStatus('run_project_tests')
  })

  it('rejects a second run while one is in progress', async () => {
    // A rejected call is the tool throwing, which Pi turns into an error result: let the session see it that way.
    const t = await createTestSession({ ...tool, toolExecution: 'parallel', propagateErrors: false })
    await t.run(
      when('build and test', [parallel(calls('run_project_tests', { script: 'build' }), calls('run_project_tests', { script: 'test' })), says('One ran.')]),
    )
    expect(t).toHaveToolResult('run_project_tests', { text: /^npm run build: passed/, isError: false })
    expect(t).toHaveToolResult('run_project_tests', {
      isError: true,
      text: `npm run build is already running in ${project}; wait for its result before starting another run`,
    })
    // The rejected call leaves the status line to the run in progress, then to its result.
    expect(t.events.uiCallsFor('setStatus').map((c) => String(c.args[1]).split(' · ')[0])).toEqual([
      'npm run build running',
      expect.stringMatching(/^npm run build passed/),
    ])
  })
})
