// Records the sessions that replay.test.ts replays: a real Pi AgentSession with protected-paths loaded as
// Pi loads an extension (TypeScript through Pi's own jiti), Pi's real write and edit tools in a temp
// project, and a scripted model standing in for the real one (none is reachable here), written by Pi's
// own session serializer (AgentSession.exportToJsonl), as `/export` writes it. A session you had with a
// real model is such a file already: copy it from ~/.pi/agent/sessions/ instead.
// Re-record after `npm run build`, once per Pi line:
//   VITEST_PI_PACKAGE=@mariozechner/pi-coding-agent node examples/protected-paths/sessions/record.mjs     (api-key-0.73.jsonl)
//   VITEST_PI_PACKAGE=@earendil-works/pi-coding-agent node examples/protected-paths/sessions/record.mjs   (api-key-1.x.jsonl, Node >= 22.19)
import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { calls, createTestSession, responds, says, settleTempDirs, thinks, when } from 'vitest-environment-pi/core'
import { findPiLine } from '../../../dist/src/pi/line.js'

const LINES = { '@mariozechner/pi-coding-agent': '0.73', '@earendil-works/pi-coding-agent': '1.x' }
const line = LINES[process.env.VITEST_PI_PACKAGE ?? '']
if (!line) throw new Error(`set VITEST_PI_PACKAGE to one of ${Object.keys(LINES).join(', ')}`)
const out = fileURLToPath(new URL(`api-key-${line}.jsonl`, import.meta.url))

// Pi's loader imports extensions with the jiti it depends on; protected-paths imports only Pi's types,
// so Pi's aliases for its own packages are not needed.
const { createJiti } = createRequire(join(findPiLine().packageDir, 'package.json'))('jiti')
const jiti = createJiti(import.meta.url, { moduleCache: false })

const t = await createTestSession({
  extensions: [fileURLToPath(new URL('../index.ts', import.meta.url))],
  importModule: (path) => jiti.import(path),
})
try {
  // The session ran as `pi --protected-paths secrets/`.
  t.session.extensionRunner.setFlagValue('protected-paths', 'secrets/')
  // The project the session worked in: the real edit tool needs the file it edits.
  mkdirSync(join(t.cwd, 'src'))
  writeFileSync(join(t.cwd, 'src', 'config.ts'), "export const config = { stripeKey: '' }\n")
  await t.run(
    when('Add my Stripe test key sk_test_51Abc to the project config', [
      responds(
        thinks('Secrets belong in .env; the config should read the key from the environment.'),
        says('I will put the key in .env and read it from the config.'),
        calls('write', { path: '.env', content: 'STRIPE_KEY=sk_test_51Abc\n' }),
      ),
      calls('write', { path: 'secrets/stripe.key', content: 'sk_test_51Abc\n' }),
      calls('edit', { path: 'src/config.ts', edits: [{ oldText: "stripeKey: ''", newText: 'stripeKey: process.env.STRIPE_KEY ?? ""' }] }),
      says('.env and secrets/ are protected, so add STRIPE_KEY=sk_test_51Abc to .env yourself; src/config.ts now reads it from the environment.'),
    ]),
    when('Keep the build output out of git', [
      responds(
        says('Adding build/ to .gitignore and to the local excludes.'),
        calls('write', { path: '.gitignore', content: 'build/\n' }),
        calls('edit', { path: '.git/info/exclude', edits: [{ oldText: '# local', newText: '# local\nbuild/' }] }),
      ),
      says('.gitignore now ignores build/; .git/ is protected, so I left .git/info/exclude alone.'),
    ]),
  )
  t.session.exportToJsonl(out)
  console.log(`wrote ${out}`)
} finally {
  await t.dispose()
  await settleTempDirs()
}
