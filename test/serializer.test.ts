// The snapshot serializer that environment/setup.ts registers (this suite's setup file too): in what the
// harness recorded it normalises ids and timestamps; temp dirs of a session wherever they appear; the
// user's own objects and strings print as plain Vitest prints them.
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from '../src/index.js'
import { harnessMade } from '../src/records/harness-made.js'

describe('snapshot serializer', () => {
  let t: TestSession | undefined
  afterEach(async () => {
    await t?.dispose()
    t = undefined
  })

  it("prints the user's own objects as plain Vitest does: ids, timestamps and UUIDs kept", () => {
    const user = { id: 'user-1', timestamp: 1_767_225_600_000, note: 'ref 0b5f3c1e-2d4a-4f6b-8c7d-9e0f1a2b3c4d', nested: { toolCallId: 'mine' } }
    expect(user).toMatchInlineSnapshot(`
      {
        "id": "user-1",
        "nested": {
          "toolCallId": "mine",
        },
        "note": "ref 0b5f3c1e-2d4a-4f6b-8c7d-9e0f1a2b3c4d",
        "timestamp": 1767225600000,
      }
    `)
  })

  it("normalises a session's records and its temp dirs, and prints what the test passed in as given", async () => {
    t = await createTestSession({ mockTools: { read: (p) => ({ content: [{ type: 'text', text: `read ${String(p.path)}` }], details: { id: 'user-1', at: 1_767_225_600_000 } }) } })
    await t.run(when('look', [calls('read', { path: join(t.cwd, 'notes.md'), id: 'user-1' }), says('done')]))
    expect(t.events.toolCalls).toMatchInlineSnapshot(`
      [
        {
          "blocked": false,
          "input": {
            "id": "user-1",
            "path": "<CWD>/notes.md",
          },
          "step": 1,
          "toolCallId": "<ID>",
          "toolName": "read",
        },
      ]
    `)
    expect(t.events.toolResults).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "read <CWD>/notes.md",
              "type": "text",
            },
          ],
          "details": {
            "at": 1767225600000,
            "id": "user-1",
          },
          "isError": false,
          "mocked": true,
          "step": 1,
          "text": "read <CWD>/notes.md",
          "toolCallId": "<ID>",
          "toolName": "read",
        },
      ]
    `)
  })

  it('normalises what a model request sent, read on its own', async () => {
    t = await createTestSession()
    await t.run(when('hi', [says('hello')]))
    expect(t.events.modelRequests[0]!.messages).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "hi",
              "type": "text",
            },
          ],
          "role": "user",
          "timestamp": "<TIME>",
        },
      ]
    `)
  })

  it('normalises temp dirs of a session in any string', () => {
    const text = 'saved under ' + join(tmpdir(), 'pi-harness-Qw12er', 'session-home-AbC123', '.pi')
    expect({ text, cwd: join(tmpdir(), 'pi-harness-Qw12er', 'session-cwd-AbC123', 'a'), home: join(tmpdir(), 'pi-harness-Qw12er', 'file-home-xYz789') })
      .toMatchInlineSnapshot(`
        {
          "cwd": "<CWD>/a",
          "home": "<HOME>",
          "text": "saved under <HOME>/.pi",
        }
      `)
  })

  it('prints [Circular] for a cycle through records it normalises, as plain Vitest does', () => {
    const session: Record<string, unknown> = harnessMade({ id: 'session_1', timestamp: 1_767_225_600_000 })
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

  it('prints [Circular] for a cycle entered through an object it does not normalise', () => {
    const plain: Record<string, unknown> = { name: 'plain' }
    const normalised: Record<string, unknown> = harnessMade({ id: 'x', plain })
    plain.back = normalised

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

  it("leaves a record's nested objects unmarked: printed alone afterwards, they print as plain Vitest does", () => {
    const inner = { id: 'inner' }
    const record = harnessMade({ id: 'r', inner })
    expect(record).toMatchInlineSnapshot(`
      {
        "id": "<ID>",
        "inner": {
          "id": "<ID>",
        },
      }
    `)
    expect(inner).toMatchInlineSnapshot(`
      {
        "id": "inner",
      }
    `)
  })
})
