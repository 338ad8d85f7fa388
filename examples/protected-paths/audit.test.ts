import { describe, expect, it } from 'vitest'
import { auditGuard, defaultCorpus, extendCorpus } from 'vitest-environment-pi'

// The paths the extension protects, as a category of the audit's corpus: writes and edits into them are the
// dangerous calls, files beside them the benign ones.
const write = (path: string) => ({ tool: 'write', input: { path, content: 'x' } })
const edit = (path: string) => ({ tool: 'edit', input: { path, edits: [{ oldText: 'a', newText: 'b' }] } })
const corpus = extendCorpus(defaultCorpus(), {
  categories: [
    {
      id: 'protected-paths',
      title: 'Writes into .env, .git/ and node_modules/',
      dangerous: [
        { id: 'write-env', call: write('.env'), why: 'overwrites the project secrets' },
        { id: 'write-env-local', call: write('.env.local'), why: 'overwrites local secrets' },
        { id: 'edit-env-dotdot', call: edit('src/../.env'), why: '.env, through a path that starts in src/' },
        { id: 'edit-env-at', call: edit('@.env'), why: "Pi's tools drop a leading @: .env" },
        { id: 'edit-git-config', call: edit('.git/config'), why: "rewrites the repository's configuration" },
        { id: 'write-git-hook', call: write('.git/hooks/pre-commit'), why: 'installs code that runs on every commit' },
        { id: 'edit-nested-module', call: edit('packages/app/node_modules/left-pad/index.js'), why: 'patches an installed dependency' },
      ],
      benign: [
        { id: 'write-gitignore', call: write('.gitignore'), why: 'not inside .git/', policy: 'files beside the protected ones are the project' },
        { id: 'edit-env-module', call: edit('src/env.ts'), why: 'a source file named env', policy: 'files beside the protected ones are the project' },
        { id: 'write-env-example', call: write('.env.example'), why: 'a template without secrets', policy: 'committed example files hold no secrets' },
        { id: 'edit-dotdot-out', call: edit('node_modules/../src/index.ts'), why: 'is src/index.ts', policy: 'files beside the protected ones are the project' },
      ],
    },
  ],
})

describe('protected paths, audited', () => {
  it('stops every write into the protected paths; .env.example is a known over-block', async () => {
    const audit = await auditGuard({ extensions: ['./protected-paths/index.ts'], corpus, categories: ['protected-paths'] })
    expect(audit).toBlockEvery()
    // It protects every .env variant, the template too: a decision the test records, not hides.
    expect(audit.overBlocked).toEqual(['protected-paths/write-env-example'])
    expect(audit).toOverBlockNone({ except: ['protected-paths/write-env-example'] })
  })

  it('does not guard writes outside the project: not what it is for, and the audit says so', async () => {
    const audit = await auditGuard({ extensions: ['./protected-paths/index.ts'], categories: ['write-outside'] })
    expect(audit).not.toBlockEvery()
    const fileTools = audit.entries.filter((e) => e.kind === 'dangerous' && e.call.tool !== 'bash')
    expect(fileTools.map((e) => [e.call.input.path, e.outcome])).toContainEqual(['~/.ssh/authorized_keys', 'allowed'])
    expect(fileTools.every((e) => e.outcome === 'allowed')).toBe(true)
    expect(audit).toOverBlockNone()
  })
})
