// A session Pi recorded (sessions/record.mjs says how to record it again), replayed against the extension
// as it is now: the model sends what the recorded one sent, the recorded tool results answer, and the
// extension decides again about every call. One recording per Pi line; either replays on either line.
import { describe, expect, it } from 'vitest'
import { createTestSession, replay, type Cassette } from 'vitest-environment-pi'

const recorded = (line: string) => replay(new URL(`sessions/api-key-${line}.jsonl`, import.meta.url))

/** A session as the recording's: `pi --protected-paths secrets/` (flags, like dialogs, are not in the file). */
async function asRecorded(cassette: Cassette, protectedPaths = 'secrets/') {
  const t = await createTestSession({ extensions: ['./protected-paths/index.ts'], mockTools: cassette.mockTools })
  t.session.extensionRunner.setFlagValue('protected-paths', protectedPaths)
  return t
}

const TURN_1 = String.raw`turn 1 \("Add my Stripe test key sk_test_51Abc to the project config"\)`

describe.each(['0.73', '1.x'])('the api-key session recorded on Pi %s', (line) => {
  const cassette = recorded(line)

  it('replays as recorded: .env, secrets/ and .git/ blocked, the config and .gitignore written', async () => {
    const t = await asRecorded(cassette)
    await t.run(...cassette.turns)
    expect(t).toHaveBlocked('write', '.env is protected (.env)')
    expect(t).toHaveBlocked('write', 'secrets/stripe.key is protected (secrets/)')
    expect(t).toHaveBlocked('edit', '.git/info/exclude is protected (.git/)')
    expect(t).toHaveToolResult('edit', { text: 'Successfully replaced 1 block(s) in src/config.ts.', isError: false })
    expect(t).toHaveNotified('Blocked write to .env: protected by .env', 'warning')
  })

  it('fails, naming the turn and step of the recording, when the extension now blocks a call that ran', async () => {
    // src/ is protected now: the edit the recorded session made is blocked.
    const t = await asRecorded(cassette, 'secrets/, src/')
    await expect(t.run(...cassette.turns)).rejects.toThrow(
      new RegExp(
        [
          String.raw`^Replay differs from the recording at ${TURN_1}, step 3 \(.*api-key-${line}\.jsonl:\d+\): call call_3_1 edit\(\{"path":"src/config\.ts",.*\}\)`,
          String.raw`  recorded: it ran and returned "Successfully replaced 1 block\(s\) in src/config\.ts\." \(line \d+\)`,
          String.raw`  now: the extension blocked it: "src/config\.ts is protected \(src/\); edit is not allowed there"`,
        ].join('\n'),
      ),
    )
  })
})

// Pi 1.x writes which calls ran (`durationMs`), so its recording also tells a block from a tool's error
// result: a block that no longer happens fails too. (In Pi 0.73's file the two look alike.)
describe('the Pi 1.x recording, which marks the calls that ran', () => {
  it('fails, naming the turn and step of the recording, when a block no longer happens', async () => {
    const cassette = recorded('1.x')
    // Run without --protected-paths: secrets/ is no longer protected.
    const t = await asRecorded(cassette, '')
    await expect(t.run(...cassette.turns)).rejects.toThrow(
      new RegExp(
        [
          String.raw`^Replay differs from the recording at ${TURN_1}, step 2 \(.*api-key-1\.x\.jsonl:\d+\): call call_2_1 write\(\{"path":"secrets/stripe\.key",.*\}\)`,
          String.raw`  recorded: Pi did not run it \(a block, or a call Pi refused\): "secrets/stripe\.key is protected \(secrets/\); write is not allowed there" \(line \d+\)`,
          // The write ran, and the recording's result answered it.
          String.raw`  now: it ran and returned the error "secrets/stripe\.key is protected \(secrets/\); write is not allowed there"`,
        ].join('\n'),
      ),
    )
  })
})
