// The sandbox's smoke run in the real `pi` process: the installed copy loaded through its manifest, as after
// `pi install`, and what only RPC mode shows (stdout outside the protocol) fails the smoke step, naming it.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { calls, says, when } from '../../src/model/script.js'
import { verifySandboxInstall } from '../../src/index.js'
import { FAST_INSTALL, leftovers, PACKAGES, removeTempParents, tempParent } from './support.js'

afterAll(removeTempParents)
const greetAda = [when('Greet Ada', [calls('greet', { name: 'Ada' }), says('Done.')])]

describe('a smoke run in a pi process', () => {
  it('runs the playbook against the installed package, its tool for real in the child', async () => {
    const tempDir = tempParent()
    const result = await verifySandboxInstall({ packageDir: join(PACKAGES, 'good'), ...FAST_INSTALL, tempDir, smoke: { process: true, script: greetAda } })
    expect(result.problems).toEqual([])
    expect(result.steps.at(-1)).toMatchObject({ step: 'smoke', status: 'passed' })
    expect(result.smoke!.events.toolResultsFor('greet')).toMatchObject([{ text: 'Hello, Ada!', isError: false, mocked: false }])
    expect(leftovers(tempDir)).toEqual([])
  })

  it('fails the smoke of a package that prints to stdout, naming the line; in process the same smoke passes', async () => {
    const packageDir = join(PACKAGES, 'stdout-printer')
    const inProcess = await verifySandboxInstall({ packageDir, ...FAST_INSTALL, tempDir: tempParent(), smoke: { script: greetAda } })
    expect(inProcess.problems).toEqual([])
    const result = await verifySandboxInstall({ packageDir, ...FAST_INSTALL, tempDir: tempParent(), smoke: { process: { turnTimeout: 60_000 }, script: greetAda } })
    expect(result.status).toBe('failed')
    expect(result.problems).toEqual([expect.stringContaining('smoke: The pi process wrote to stdout outside the RPC protocol: "debug: greeting Ada"')])
    expect(result.steps.at(-1)).toMatchObject({ step: 'smoke', status: 'failed' })
  })
})
