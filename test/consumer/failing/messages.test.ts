// Every assertion here fails on purpose: the driver reads the failure messages.
import { expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

async function worked() {
  const t = await createTestSession({ mockTools: { bash: (p) => `ran ${p.command}`, write: 'written' }, propagateErrors: false })
  await t.run(
    when('work', [
      calls('bash', { command: 'ls' }),
      calls('bash', { command: 'git status', timeout: 10 }),
      calls('write', { path: 'out.txt', content: 'hello' }),
      calls('bash', { command: 'rm -rf /' }),
      says('done'),
    ]),
  )
  return t
}

it('toHaveCalledTool with params that never matched', async () => {
  expect(await worked()).toHaveCalledTool('bash', { command: 'git stash' })
})
it('toHaveCalledTool of a tool never called', async () => {
  expect(await worked()).toHaveCalledTool('edit')
})
it('not.toHaveCalledTool of a tool that was called', async () => {
  expect(await worked()).not.toHaveCalledTool('write')
})
it('toHaveCalledToolTimes', async () => {
  expect(await worked()).toHaveCalledToolTimes('bash', 2)
})
it('toHaveCalledToolsInOrder', async () => {
  expect(await worked()).toHaveCalledToolsInOrder(['write', 'bash', 'write'])
})
it('toHaveBlocked of a tool that ran', async () => {
  expect(await worked()).toHaveBlocked('write')
})
it('toHaveBlocked with another reason', async () => {
  expect(await worked()).toHaveBlocked('bash', 'sudo')
})
it('not.toHaveBlocked of a blocked tool', async () => {
  expect(await worked()).not.toHaveBlocked('bash')
})
it('toHaveToolResult', async () => {
  expect(await worked()).toHaveToolResult('write', { text: 'failed', isError: true })
})
it('toHaveNotified', async () => {
  expect(await worked()).toHaveNotified('all clear')
})
it('toHavePrompted', async () => {
  expect(await worked()).toHavePrompted('select', 'Mode?')
})
it('toHaveSetStatus', async () => {
  expect(await worked()).toHaveSetStatus('guard', 'mode: strict')
})
it('toHaveSaid', async () => {
  expect(await worked()).toHaveSaid('finished')
})
it('toHaveSentToModel', async () => {
  expect(await worked()).toHaveSentToModel('secret')
})
it('toHaveRegisteredTool', async () => {
  expect(await worked()).toHaveRegisteredTool('deploy')
})
it('not.toHaveRegisteredCommand', async () => {
  expect(await worked()).not.toHaveRegisteredCommand('mode')
})
it('an invalid receiver', () => {
  expect({ nope: true }).toHaveCalledTool('bash')
})
it('an unhandled exec the test never awaited', async () => {
  // The extension runs git when the session starts and ignores the failure: the test still fails.
  await createTestSession({
    extensions: [(pi) => pi.on('session_start', () => void pi.exec('git', ['status']).catch(() => undefined))],
  })
})
