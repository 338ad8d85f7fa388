// Extensions that shell out with node:child_process directly (not pi.exec) are not intercepted: the
// process runs for real, but inside the session's temp HOME and, with ctx.cwd, its temp cwd.
import { execFileSync } from 'node:child_process'
import { homedir } from 'node:os'
import { Type } from 'typebox'
import { expect, it } from 'vitest'
import { calls, createTestSession, says, when } from '../src/index.js'

it('runs a directly spawned process inside the temp HOME and cwd', async () => {
  const realHome = homedir()
  const t = await createTestSession({
    extensions: [
      (pi) =>
        pi.registerTool({
          name: 'where',
          label: 'Where',
          description: 'Reports HOME and the working directory of a child process',
          parameters: Type.Object({}),
          async execute(_id, _params, _signal, _onUpdate, ctx) {
            const out = execFileSync('sh', ['-c', 'echo "$HOME"; pwd; echo "$PI_CODING_AGENT_DIR"'], { cwd: ctx.cwd, encoding: 'utf8' })
            return { content: [{ type: 'text', text: out }], details: {} }
          },
        }),
    ],
  })
  await t.run(when('where?', [calls('where'), says('there')]))
  const [home, cwd, agentDir] = t.events.toolResultsFor('where')[0]!.text.trim().split('\n')
  expect(home).toBe(homedir())
  expect(home).not.toBe(realHome)
  expect(cwd).toBe(t.cwd)
  expect(agentDir!.startsWith(`${home}/`)).toBe(true)
  await t.dispose()
})
