// The world a session starts in: files seeded into its home and cwd before its extensions run, Pi's own
// dirs and settings files, process.cwd(), a restart over the same dirs, and discovery kept to the session.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { calls, createTestSession, says, when } from '../environment/index.js'

const PERMISSION = 'test/fixtures/extensions/permission.ts'
const TOOL_OVERRIDE = 'node_modules/@mariozechner/pi-coding-agent/examples/extensions/tool-override.ts'
const GLOBAL_SETTINGS = '.pi/agent/settings.json'

describe('the permission pattern, end to end', () => {
  it('reads the seeded level at start, /permission saves it globally, and a restarted session reads it', async () => {
    const t1 = await createTestSession({ extensions: [PERMISSION], home: { [GLOBAL_SETTINGS]: { permission: 'read-only' } }, mockTools: { bash: 'ran' } })
    expect(t1).toHaveSetStatus('permission', 'permission: read-only')
    await t1.run(when('list', [calls('bash', { command: 'ls' }), says('blocked')]))
    expect(t1).toHaveBlocked('bash')

    await t1.command('permission', 'full')
    expect(JSON.parse(readFileSync(join(t1.home, GLOBAL_SETTINGS), 'utf8'))).toEqual({ permission: 'full' })

    const t2 = await createTestSession({ extensions: [PERMISSION], restartFrom: t1, mockTools: { bash: 'ran' } })
    expect([t2.home, t2.cwd]).toEqual([t1.home, t1.cwd])
    expect(t2).toHaveSetStatus('permission', 'permission: full')
    await t2.run(when('list', [calls('bash', { command: 'ls' }), says('ran')]))
    expect(t2).not.toHaveBlocked('bash')
  })
})
