import { expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

it('snapshots records with ids, times and temp paths normalised', async () => {
  let cwd = ''
  const t = await createTestSession({ mockTools: { bash: (p) => `ran ${p.command} in ${cwd}` } })
  cwd = t.cwd
  await t.run(when('look', [calls('bash', { command: 'rm -rf /' }), calls('bash', { command: 'ls' }), says('done')]))
  expect(t.events.toolSequence()).toMatchInlineSnapshot(`
    [
      "bash",
      "bash",
    ]
  `)
  expect(t.events.toolResults).toMatchSnapshot()
  expect(t.events.messages.at(-1)).toMatchSnapshot()
})
