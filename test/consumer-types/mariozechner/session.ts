// Only @mariozechner/pi-coding-agent is installed: t.session is its AgentSession, factories take its ExtensionAPI.
import type { AgentSession, ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { expect, it } from 'vitest'
import { createTestSession, type TestSession } from 'vitest-environment-pi'
import guard from './extension.js'
// @ts-expect-error the other line is not installed: the package's types must not need it
import type {} from '@earendil-works/pi-coding-agent'

it('gives the installed line its own session and API types', async () => {
  const greet = (pi: ExtensionAPI) => pi.registerCommand('greet', { description: 'Greets', handler: async () => {} })
  const t: TestSession = await createTestSession({ extensions: [guard, greet] })
  const session: AgentSession = t.session
  expect(session.modelRegistry).toBeDefined()
  // @ts-expect-error waitForIdle is 1.x's
  await t.session.waitForIdle()
})
