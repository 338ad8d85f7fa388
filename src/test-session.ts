// createTestSession at either depth: in process (src/session/), or the installed `pi` CLI over RPC
// (src/process/), loaded on first use as the runner that starts it is.
import { createTestSession as createInProcess, type TestSession, type TestSessionOptions } from './session/create.js'
import { planSession } from './session/plan.js'

export type { TestSession, TestSessionOptions }

export async function createTestSession(options: TestSessionOptions = {}): Promise<TestSession> {
  if (!options.process) return createInProcess(options)
  const { createProcessSession } = await import('./process/session.js')
  return createProcessSession(planSession(options))
}
