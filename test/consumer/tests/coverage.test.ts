import { expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

it('reaches classify through the extension, three times', async () => {
  const t = await createTestSession({ mockTools: { read: 'text' } })
  await t.run(
    when('read', [calls('read', { path: '/etc/hosts' }), calls('read', { path: '/etc/passwd' }), calls('read', { path: 'src/a.ts' }), says('ok')]),
  )
  expect(t).toHaveBlocked('read', 'system path /etc/hosts')
})
