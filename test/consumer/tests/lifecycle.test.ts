import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTestSession, says, when, type TestSession } from 'vitest-environment-pi'
import { createTestSession as createCoreSession } from 'vitest-environment-pi/core'

let fileSession: TestSession
const shutdowns: string[] = []

beforeAll(async () => {
  fileSession = await createTestSession({ extensions: [(pi) => { pi.on('session_shutdown', () => void shutdowns.push('file')) }] })
})

afterAll(() => {
  // Disposed by the harness after this hook, at the end of the file.
  expect(shutdowns).toEqual(['test'])
})

it('runs in an isolated home', async () => {
  expect(process.env.PI_CODING_AGENT_DIR?.startsWith(homedir())).toBe(true)
  expect(process.env.PI_OFFLINE).toBe('1')
  await fileSession.run(when('hi', [says('hello')]))
})

it('disposes a session created in a test when the test ends', async () => {
  const t = await createTestSession({ extensions: [(pi) => { pi.on('session_shutdown', () => void shutdowns.push('test')) }] })
  expect(existsSync(t.cwd)).toBe(true)
})

// Its dirs are removed in the background, all gone when the file ends (consumer.test.ts checks TMPDIR after the run).
it('... so the next test finds it shut down', () => {
  expect(shutdowns).toEqual(['test'])
})

// The core API leaves disposing to its caller; one this test forgets is disposed when the file ends, after
// the file's own afterAll (consumer.test.ts finds TMPDIR empty after every pool's run).
it('leaves a session of the core API undisposed', async () => {
  const t = await createCoreSession()
  expect(existsSync(t.home)).toBe(true)
})
