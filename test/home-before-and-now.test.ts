// A suite written when HOME was the test file's (one temp dir for every session of the file) and what it
// writes now that each session has its own (CHANGELOG, "HOME is per session"). Each test is a use that
// worked before, done the way that works now.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { createTestSession } from '../environment/index.js'
import { settleTempDirs } from '../src/index.js'

const NOTES = join('.config', 'notes', 'notes.json')

/** Keeps notes under ~/.config, and reads its settings from ~/.notes-settings.json each time it runs. */
function notes(pi: ExtensionAPI) {
  pi.registerCommand('note', {
    handler: async (args, ctx) => {
      const settingsFile = join(os.homedir(), '.notes-settings.json')
      const settings = existsSync(settingsFile) ? (JSON.parse(readFileSync(settingsFile, 'utf8')) as { prefix?: string }) : {}
      const file = join(os.homedir(), NOTES)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, JSON.stringify([`${settings.prefix ?? ''}${args}`]))
      ctx.ui.notify(`noted in ${file}`)
    },
  })
}

describe('HOME is per session: what a suite that read and wrote process.env.HOME does now', () => {
  it('reads what the extension wrote under ~ from t.home (process.env.HOME is that dir while the session lives)', async () => {
    const t = await createTestSession({ extensions: [notes] })
    await t.command('note', 'buy milk')
    // Before: readFileSync(join(process.env.HOME!, NOTES)). It still reads the same file while t lives.
    expect(process.env.HOME).toBe(t.home)
    expect(JSON.parse(readFileSync(join(t.home, NOTES), 'utf8'))).toEqual(['buy milk'])
    expect(t).toHaveNotified(`noted in ${join(t.home, NOTES)}`)
  })

  it("a file written under the file's HOME before the session is not the session's: write it into t.home", async () => {
    // Before: written here, under the file's HOME, every session of the file read it.
    writeFileSync(join(os.homedir(), '.notes-settings.json'), JSON.stringify({ prefix: 'ignored: ' }))
    const t = await createTestSession({ extensions: [notes] })
    // Now: into the session's own home. An extension that reads it at start needs the seeding option
    // (createTestSession({ home: { ... } })), which writes it before extensions load.
    writeFileSync(join(t.home, '.notes-settings.json'), JSON.stringify({ prefix: 'todo: ' }))
    await t.command('note', 'buy milk')
    expect(JSON.parse(readFileSync(join(t.home, NOTES), 'utf8'))).toEqual(['todo: buy milk'])
  })

  it("what a session wrote is gone once it is disposed and settled: read it before the test ends", async () => {
    const t = await createTestSession({ extensions: [notes] })
    await t.command('note', 'buy milk')
    const written = readFileSync(join(t.home, NOTES), 'utf8')
    // Before: the file's HOME, and what the sessions wrote in it, lived until the test file ended.
    await t.dispose()
    await settleTempDirs()
    expect([written, existsSync(t.home)]).toEqual(['["buy milk"]', false])
  })
})
