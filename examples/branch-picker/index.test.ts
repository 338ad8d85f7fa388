import { describe, expect, it } from 'vitest'
import { createTestSession } from 'vitest-environment-pi'

// git answers from rules: the branch list, and a checkout that works except for "broken".
const git = {
  exec: {
    rules: [
      { match: { cmd_exact: 'git', args_contain: ['branch'] }, result: { stdout: 'main\nfeature/login\nbroken\n' } },
      { match: { cmd_exact: 'git', args_contain: ['checkout', 'broken'] }, result: { code: 1, stderr: 'error: pathspec did not match\n' } },
      { match: { cmd_exact: 'git', args_contain: ['checkout'] }, result: { stdout: '' } },
    ],
  },
}
const picker = (keys: string[]) => createTestSession({ extensions: ['./branch-picker/index.ts'], mocks: git, mockUI: { custom: { keys } } })

describe('branch picker', () => {
  it('switches to the branch picked with the arrow keys', async () => {
    const t = await picker(['down', 'enter'])
    await t.command('checkout')
    expect(t).toHaveRendered(/→ feature\/login/) // the list as Pi's SelectList draws it, after "down"
    expect(t).toHaveExecuted('git', ['checkout', 'feature/login']) // "--quiet" may come between
    expect(t).not.toHaveExecuted('git', ['checkout', 'main'])
    expect(t).toHaveSetWidget('branch', ['on feature/login'])
    expect(t).toHaveAppendedEntry('branch-switch', { branch: 'feature/login' })
  })

  it('switches nowhere when the user presses Escape', async () => {
    const t = await picker(['escape'])
    await t.command('checkout')
    expect(t).not.toHaveExecuted('git', ['checkout'])
    expect(t).not.toHaveSetWidget('branch')
  })

  it('says so when git refuses, and keeps no record of a switch', async () => {
    const t = await picker(['down', 'down', 'enter'])
    await t.command('checkout')
    expect(t).toHaveNotified('git checkout broken failed: error: pathspec did not match', 'error')
    expect(t).not.toHaveAppendedEntry('branch-switch')
  })

  it('refuses without a UI', async () => {
    const t = await createTestSession({ extensions: ['./branch-picker/index.ts'], mocks: git, mockUI: false })
    await t.command('checkout')
    expect(t).toHaveNotified('/checkout needs the interactive UI', 'error')
    expect(t).not.toHaveExecuted('git')
  })
})
