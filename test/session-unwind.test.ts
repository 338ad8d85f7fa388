import { existsSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { createTestSession } from '../src/index.js'
import { enterIsolation } from '../src/isolation/isolation.js'
import { settleTempDirs } from '../src/isolation/temp-dirs.js'
import { DisposerStack } from '../src/session/disposer.js'

const HTTP_RULE = { http: { rules: [{ match: { url_prefix: 'https://api.unwind.test/' }, response: { status: 200, body: 'from the failed session' } }] } }

/** What a request to the failed session's URL gets now: another answer means its rules still answer. */
async function fetchFailedSessionUrl(): Promise<string> {
  try {
    return `answered: ${await (await fetch('https://api.unwind.test/x')).text()}`
  } catch (error) {
    return `failed: ${String((error as Error & { cause?: Error }).cause?.message ?? error)}`
  }
}

describe('a session that fails to start unwinds everything it made', () => {
  // Held across each test, so the network stays cut and HTTP intercepted after the failed session is gone.
  let leave: () => void
  beforeEach(async () => void ({ leave } = await enterIsolation()))
  afterEach(() => leave())

  it('after the extensions started: session_shutdown fires, its cwd is removed, its HTTP rules stop answering', async () => {
    const seen: { cwd?: string; shutdown?: string } = {}
    const extension = (pi: ExtensionAPI) => {
      pi.on('session_start', (_event, ctx) => void (seen.cwd = ctx.cwd))
      pi.on('session_shutdown', (event) => void (seen.shutdown = (event as { reason?: string }).reason ?? 'no reason'))
      pi.on('input', () => ({ action: 'continue' as const }))
    }
    await expect(
      createTestSession({
        extensions: [extension],
        mocks: { ...HTTP_RULE, events: { fire_sequence: [{ event: 'input', payload: { text: 'hi' }, expected_response: { action: 'handled' } }] } },
      }),
    ).rejects.toThrow('events.fire_sequence[0] (input): the handlers returned a different result than expected_response')
    expect(seen.shutdown).toBe('quit')
    expect(seen.cwd).toMatch(/\/pi-harness-\w+\/session-cwd-\w+$/)
    await settleTempDirs()
    expect(existsSync(seen.cwd!)).toBe(false)
    expect(await fetchFailedSessionUrl()).toBe('failed: Network access is disabled in tests: GET https://api.unwind.test/x (no test session is answering HTTP)')
  })

  it('when an extension fails to load: no session_shutdown (it never started), its HTTP rules stop answering', async () => {
    let shutdown = false
    const extensions = [
      (pi: ExtensionAPI) => void pi.on('session_shutdown', () => void (shutdown = true)),
      () => {
        throw new Error('broken factory')
      },
    ]
    await expect(createTestSession({ extensions, mocks: HTTP_RULE })).rejects.toThrow('Extension failed to load:\n  <inline:2>: its factory threw: broken factory')
    expect(shutdown).toBe(false)
    expect(await fetchFailedSessionUrl()).toBe('failed: Network access is disabled in tests: GET https://api.unwind.test/x (no test session is answering HTTP)')
  })
})

describe('DisposerStack', () => {
  it('runs clean-ups newest first, every one even when an earlier one throws, then throws the first error', async () => {
    const stack = new DisposerStack()
    const ran: string[] = []
    stack.defer(() => ran.push('first made'))
    stack.defer(() => {
      ran.push('second made')
      throw new Error('second failed')
    })
    stack.defer(async () => void ran.push('last made'))
    await expect(stack.dispose()).rejects.toThrow('second failed')
    expect(ran).toEqual(['last made', 'second made', 'first made'])
    await stack.dispose()
    expect(ran).toHaveLength(3)
    expect(() => stack.defer(() => {})).toThrow('DisposerStack: defer() after dispose()')
  })

  it('unwind() rethrows the failure it unwinds from, and names a clean-up that failed too', async () => {
    const clean = new DisposerStack()
    const failure = new Error('step 3 failed')
    await expect(clean.unwind(failure)).rejects.toBe(failure)

    const dirty = new DisposerStack()
    dirty.defer(() => {
      throw new Error('rmdir failed')
    })
    await expect(dirty.unwind(failure)).rejects.toThrow('step 3 failed\n(and cleaning up after it failed too: rmdir failed)')
  })
})
