// t.press(key): the shortcut an extension registered runs as Pi's interactive mode resolves it, with the
// extensions' context. Pi's preset.ts cycles its presets on Ctrl+Shift+U.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { createTestSession, says } from '../environment/index.js'
import { PI_LINE } from '../src/pi/index.js'

const PRESET = join(PI_LINE.packageDir, 'examples/extensions/preset.ts')

let cwd: string | undefined
afterEach(() => {
  if (cwd) rmSync(cwd, { recursive: true, force: true })
  cwd = undefined
})

it("presses Ctrl+Shift+U: Pi's preset.ts activates its first preset, then clears it", async () => {
  cwd = mkdtempSync(join(tmpdir(), 'shortcuts-'))
  mkdirSync(join(cwd, '.pi'))
  writeFileSync(join(cwd, '.pi/presets.json'), JSON.stringify({ plan: { tools: ['read'], instructions: 'Only plan.' } }))
  const t = await createTestSession({ extensions: [PRESET], cwd })
  await t.press('ctrl+shift+u')
  expect(t).toHaveNotified('Preset "plan" activated', 'info')
  expect(t.session.getActiveToolNames()).toEqual(['read'])
  await t.press('ctrl+shift+u')
  expect(t).toHaveNotified('Preset cleared, defaults restored', 'info')
})

it('a key no extension registered fails, listing the registered shortcuts', async () => {
  const t = await createTestSession({ extensions: [PRESET] })
  await expect(t.press('ctrl+x')).rejects.toThrow(
    `press("ctrl+x"): no extension registered a shortcut for this key. Registered shortcuts: ctrl+shift+u ("Cycle presets", ${PRESET})`,
  )
  await expect(t.press('ctrl+shift+nope')).rejects.toThrow('press("ctrl+shift+nope"): "ctrl+shift+nope" is not a key.')
})

it('a shortcut that starts a turn is scripted like a command, and a throwing handler fails the press', async () => {
  const keys = (pi: ExtensionAPI) => {
    pi.registerShortcut('ctrl+alt+g', { description: 'Go', handler: async () => pi.sendUserMessage('Go on.') })
    pi.registerShortcut('f5', { handler: () => { throw new Error('no refresh today') } })
  }
  const t = await createTestSession({ extensions: [keys] })
  await t.press('ctrl+alt+g', [says('Going.')])
  expect(t.events.lastAssistantText()).toBe('Going.')
  await expect(t.press('f5')).rejects.toThrow("The f5 (<inline:1>) shortcut's handler threw: no refresh today")
})
