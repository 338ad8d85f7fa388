import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { calls, createTestSession, parallel, says, when } from 'vitest-environment-pi'

// write and edit are mocked: nothing touches the disk, and a call that gets through says so in its result.
const guarded = {
  extensions: ['./protected-paths/index.ts'],
  mockTools: { write: (p: Record<string, unknown>) => `wrote ${p.path}`, edit: (p: Record<string, unknown>) => `edited ${p.path}` },
}
const write = (path: string) => calls('write', { path, content: 'x' })
const edit = (path: string) => calls('edit', { path, edits: [{ oldText: 'a', newText: 'b' }] })

describe('protected paths', () => {
  it('blocks a write to .env, with a reason the model reads, and warns the user', async () => {
    const t = await createTestSession(guarded)
    await t.run(when('set the API key', [write('.env'), says('I may not touch .env.')]))
    expect(t).toHaveBlocked('write', '.env is protected (.env)')
    expect(t).toHaveToolResult('write', { isError: true, text: '.env is protected' })
    expect(t).toHaveNotified('Blocked write to .env: protected by .env', 'warning')
  })

  it('protects the variants of .env too', async () => {
    const t = await createTestSession(guarded)
    await t.run(when('configure', [write('.env.local'), says('Blocked.')]))
    expect(t).toHaveBlocked('write', '.env.local is protected (.env)')
  })

  it('blocks edits inside .git/ and node_modules/, at any depth', async () => {
    const t = await createTestSession(guarded)
    await t.run(when('patch things', [parallel(edit('.git/config'), edit('packages/app/node_modules/left-pad/index.js')), says('Both blocked.')]))
    expect(t).toHaveBlocked('edit', '.git/config is protected (.git/)')
    expect(t).toHaveBlocked('edit', 'packages/app/node_modules/left-pad/index.js is protected (node_modules/)')
    expect(t).toHaveCalledToolTimes('edit', 2)
    expect(t.events.blockedCalls()).toHaveLength(2)
  })

  it('blocks silently when there is no UI', async () => {
    const t = await createTestSession({ ...guarded, mockUI: false })
    await t.run(when('set the API key', [write('.env'), says('Blocked.')]))
    expect(t).toHaveBlocked('write', '.env is protected')
    expect(t).not.toHaveNotified('Blocked')
  })

  it('lets writes and edits elsewhere through, without a word to the user', async () => {
    const t = await createTestSession(guarded)
    await t.run(when('write the code', [write('.gitignore'), edit('src/env.ts'), says('Done.')]))
    expect(t).not.toHaveBlocked('write')
    expect(t).not.toHaveBlocked('edit')
    expect(t).toHaveToolResult('write', { text: 'wrote .gitignore', isError: false })
    expect(t).toHaveToolResult('edit', { text: 'edited src/env.ts', isError: false })
    expect(t.events.ui).toEqual([])
  })

  it('resolves a relative path against the working directory before deciding', async () => {
    const t = await createTestSession(guarded)
    await t.run(
      when('tidy up', [
        edit('src/../.env'), // is .env
        edit('@.env'), // Pi's tools drop a leading @: also .env
        edit('node_modules/../src/index.ts'), // is src/index.ts
        edit(join(t.cwd, '.git', 'HEAD')), // absolute, inside the working directory
        edit('../other-project/.env'), // outside it, still a .env
        says('Done.'),
      ]),
    )
    expect(t).toHaveBlocked('edit', 'src/../.env is protected (.env)')
    expect(t).toHaveBlocked('edit', '@.env is protected (.env)')
    expect(t).toHaveToolResult('edit', { text: 'edited node_modules/../src/index.ts', isError: false })
    expect(t).toHaveBlocked('edit', `${join(t.cwd, '.git', 'HEAD')} is protected (.git/)`)
    expect(t.events.blockedCalls().map((c) => c.input.path)).toEqual(['src/../.env', '@.env', join(t.cwd, '.git', 'HEAD'), '../other-project/.env'])
  })

  it('protects more paths given with --protected-paths', async () => {
    const t = await createTestSession(guarded)
    // What `pi --protected-paths "secrets/, deploy/prod.yaml"` sets.
    t.session.extensionRunner.setFlagValue('protected-paths', 'secrets/, deploy/prod.yaml')
    await t.run(when('ship it', [write('secrets/token'), write('deploy/prod.yaml'), write('deploy/staging.yaml'), says('Staging only.')]))
    expect(t).toHaveBlocked('write', 'secrets/token is protected (secrets/)')
    expect(t).toHaveBlocked('write', 'deploy/prod.yaml is protected (deploy/prod.yaml)')
    expect(t).toHaveToolResult('write', { text: 'wrote deploy/staging.yaml', isError: false })
  })
})
