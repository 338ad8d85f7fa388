import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { calls, createMockPi, createTestSession, says, when, type MockPi, type TestSessionOptions } from 'vitest-environment-pi'

let mockPi: MockPi
afterEach(() => mockPi.dispose())

// pi.exec runs the fake `pi` for real: 'bypass' lets exec calls that no rule answers run.
const subagent: TestSessionOptions = { extensions: ['./subagent/index.ts'], unhandled: 'bypass' }

it('returns the final answer of the subagent, which read its task from the file', async () => {
  mockPi = createMockPi().onCall(({ args, cwd }) => {
    const task = readFileSync(resolve(cwd, args.at(-1)!.slice(1)), 'utf8')
    const sessions = args[args.indexOf('--session-dir') + 1]!
    return { json: `Done: ${task}`, writeFiles: { [join(sessions, 'subagent.jsonl')]: '{"type":"session"}\n' } }
  })
  mockPi.install()
  const t = await createTestSession(subagent)
  await t.run(when('Delegate the changelog', [calls('delegate', { task: 'Write the changelog.' }), says('Delegated.')]))
  expect(t).toHaveToolResult('delegate', { text: 'Done: Write the changelog.' })
  expect(readdirSync(join(t.cwd, '.subagent-sessions'))).toEqual(['subagent.jsonl'])
})

it('reports a subagent that fails', async () => {
  mockPi = createMockPi().onCall({ exitCode: 1, stderr: 'No API key for provider anthropic\n' })
  mockPi.install()
  const t = await createTestSession(subagent)
  await t.run(when('Delegate', [calls('delegate', { task: 'x' }), says('It failed.')]))
  expect(t).toHaveToolResult('delegate', { text: 'The subagent failed: No API key for provider anthropic' })
})
