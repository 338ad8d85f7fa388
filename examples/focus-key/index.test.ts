import { expect, it } from 'vitest'
import { createTestSession } from 'vitest-environment-pi'

it('Ctrl+Shift+F turns focus mode on and off', async () => {
  const t = await createTestSession({ extensions: ['./focus-key/index.ts'] })
  await t.press('ctrl+shift+f')
  expect(t).toHaveSetStatus('focus', 'focus mode')
  expect(t.session.getActiveToolNames()).toEqual(['read', 'grep', 'find', 'ls'])
  await t.press('ctrl+shift+f')
  expect(t.session.getActiveToolNames()).toEqual(['read', 'bash', 'edit', 'write'])
})

it('another key is refused, naming the shortcuts there are', async () => {
  const t = await createTestSession({ extensions: ['./focus-key/index.ts'] })
  await expect(t.press('ctrl+shift+g')).rejects.toThrow('Registered shortcuts: ctrl+shift+f ("Toggle focus mode (read-only tools)"')
})
