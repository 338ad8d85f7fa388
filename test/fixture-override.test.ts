// test.override({ sessionOptions }) in a nested suite merges over the enclosing suite's options.
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { describe, expect } from 'vitest'
import { mergeSessionOptions } from '../environment/fixture.js'
import { test } from '../environment/index.js'

/** `/hello` notifies, and asks to confirm first. */
const hello = (pi: ExtensionAPI) =>
  pi.registerCommand('hello', { handler: async (_args, ctx) => ctx.ui.notify(`confirmed: ${await ctx.ui.confirm('Greet?', '')}`) })

test.override({ sessionOptions: { extensions: [hello], mockUI: { confirm: true, select: 'a' } } })

describe('nested test.override', () => {
  test('the file-level options hold', async ({ session }) => {
    await session.command('hello')
    expect(session).toHaveNotified('confirmed: true')
  })

  describe('an inner suite', () => {
    test.override({ sessionOptions: { mockUI: { confirm: false } } })

    test('keeps the outer extensions and merges mockUI key by key', async ({ session, sessionOptions }) => {
      await session.command('hello')
      expect(session).toHaveNotified('confirmed: false')
      expect(sessionOptions.mockUI).toEqual({ confirm: false, select: 'a' })
    })

    describe('and one inside it', () => {
      test.override('sessionOptions', { propagateErrors: false })
      test('merges over both', ({ sessionOptions }) => {
        expect(sessionOptions).toEqual({ extensions: [hello], mockUI: { confirm: false, select: 'a' }, propagateErrors: false })
      })
    })
  })

  describe('a sibling suite', () => {
    test('is not touched by the inner override', ({ sessionOptions }) => {
      expect(sessionOptions.mockUI).toEqual({ confirm: true, select: 'a' })
    })
  })
})

describe('mergeSessionOptions', () => {
  test('plain objects merge all the way down; arrays, false and functions replace', () => {
    const f = () => 'x'
    expect(
      mergeSessionOptions<Record<string, unknown>>(
        { extensions: ['a.ts'], tools: ['read'], mocks: { exec: { rules: [1], default_result: { code: 0 } } }, mockUI: { confirm: true }, mockTools: { bash: 'ok' } },
        { extensions: ['b.ts'], mocks: { exec: { rules: [2] } }, mockUI: false, mockTools: { read: f } },
      ),
    ).toEqual({ extensions: ['b.ts'], tools: ['read'], mocks: { exec: { rules: [2], default_result: { code: 0 } } }, mockUI: false, mockTools: { bash: 'ok', read: f } })
  })
})
