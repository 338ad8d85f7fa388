// The first test init writes for an extension: it loads, what it registers is there, and one scripted
// turn runs with it loaded. A test a person would write first, to be grown from.
import type { Registrations } from './probe.js'

export interface FirstTest {
  /** The extension's path as the test names it, relative to the project root (`./index.ts`). */
  readonly extension: string
  /** What it registered when init loaded it, or why it could not load it. */
  readonly registrations: Registrations | { error: string }
  readonly typescript: boolean
}

const q = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`

export function firstTest({ extension, registrations }: FirstTest): string {
  const name = extension.replace(/^\.\//, '')
  const loaded = 'error' in registrations ? undefined : registrations
  const asserts = loaded
    ? [...loaded.tools.map((tool) => `  expect(t).toHaveRegisteredTool(${q(tool)})`), ...loaded.commands.map((command) => `  expect(t).toHaveRegisteredCommand(${q(command)})`)]
    : []
  const registered = asserts.length > 0
    ? asserts
    : loaded
      ? ['  // It registers no tool and no command: assert what it does instead, e.g. expect(t).toHaveBlocked(\'bash\').']
      : [`  // init could not load it to see what it registers (${registrations && 'error' in registrations ? registrations.error.split('\n')[0] : ''}).`, "  // Assert its tools and commands, e.g. expect(t).toHaveRegisteredTool('my_tool')."]
  return [
    "import { expect, it } from 'vitest'",
    "import { createTestSession, says, when } from 'vitest-environment-pi'",
    '',
    `const extension = ${q(extension)}`,
    '',
    `it(${q(`loads ${name} and registers what it offers`)}, async () => {`,
    '  const t = await createTestSession({ extensions: [extension] })',
    ...registered,
    '})',
    '',
    `it(${q(`runs a scripted turn with ${name} loaded`)}, async () => {`,
    '  const t = await createTestSession({ extensions: [extension] })',
    "  await t.run(when('Hello', [says('Hi! How can I help?')]))",
    "  expect(t).toHaveSaid('Hi! How can I help?')",
    '})',
    '',
  ].join('\n')
}
