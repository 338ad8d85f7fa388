// The snapshot serializer that environment/setup.ts registers (this suite's setup file too): it
// normalizes ids, timestamps and temp dirs, and prints everything else as plain Vitest does.
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

describe('snapshot serializer', () => {
  it('replaces ids, timestamps and the temp dirs of a session', () => {
    const record = {
      id: 'call_01',
      toolCallId: 'call_1_1',
      parentId: 'e7',
      said: 'session 0b5f3c1e-2d4a-4f6b-8c7d-9e0f1a2b3c4d ended',
      timestamp: 1_767_225_600_000,
      durationMs: 12,
      path: join(tmpdir(), 'pi-harness-Qw12er', 'session-cwd-AbC123', 'notes.md'),
      note: 'saved under ' + join(tmpdir(), 'pi-harness-Qw12er', 'session-home-AbC123', '.pi'),
      fileHome: join(tmpdir(), 'pi-harness-Qw12er', 'file-home-xYz789'),
    }

    expect(record).toMatchInlineSnapshot(`
      {
        "durationMs": "<TIME>",
        "fileHome": "<HOME>",
        "id": "<ID>",
        "note": "saved under <HOME>/.pi",
        "parentId": "<ID>",
        "path": "<CWD>/notes.md",
        "said": "session <ID> ended",
        "timestamp": "<TIME>",
        "toolCallId": "<ID>",
      }
    `)
  })

  it('prints [Circular] for a cycle through objects it normalizes, as plain Vitest does', () => {
    const session: Record<string, unknown> = { id: 'session_1', timestamp: 1_767_225_600_000 }
    const entry: Record<string, unknown> = { id: 'entry_1', session }
    session.entries = [entry]
    session.self = session

    expect(session).toMatchInlineSnapshot(`
      {
        "entries": [
          {
            "id": "<ID>",
            "session": [Circular],
          },
        ],
        "id": "<ID>",
        "self": [Circular],
        "timestamp": "<TIME>",
      }
    `)
  })

  it('prints [Circular] for a cycle entered through an object it does not normalize', () => {
    const plain: Record<string, unknown> = { name: 'plain' }
    const normalized: Record<string, unknown> = { id: 'x', plain }
    plain.back = normalized

    expect(plain).toMatchInlineSnapshot(`
      {
        "back": {
          "id": "<ID>",
          "plain": [Circular],
        },
        "name": "plain",
      }
    `)
  })
})
