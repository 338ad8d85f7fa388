import { runInNewContext } from 'node:vm'
import v8 from 'node:v8'
import { describe, expect, it } from 'vitest'
import type { Message } from '../src/pi/types.js'
import { messagesOf, RequestLog } from '../src/records/request-log.js'

// A request's messages as Pi sends them: a fresh copy of the transcript every time.
const user = (text: string, timestamp: number): Message => ({ role: 'user', content: text, timestamp })
const copyOf = (messages: readonly Message[]) => structuredClone(messages) as Message[]

describe('the request log', () => {
  it('keeps only the new messages of a request that repeats the previous one, and gives back all of them', () => {
    const log = new RequestLog()
    const first = [user('a', 1)]
    const second = [...copyOf(first), user('b', 2), user('c', 3)]
    log.record(first, true)
    const chunk = log.record(second, true)
    expect(chunk.tail).toEqual([user('b', 2), user('c', 3)])
    expect(messagesOf(chunk)).toEqual([user('a', 1), user('b', 2), user('c', 3)])
    // Compared with all the messages before it, not only the previous request's new ones.
    const third = log.record([...copyOf(second), user('d', 4)], true)
    expect(third.tail).toEqual([user('d', 4)])
    expect(messagesOf(third).map((m) => m.timestamp)).toEqual([1, 2, 3, 4])
    expect(log.record([user('a', 1), user('x', 9), user('c', 3), user('d', 4), user('e', 5)], true).base).toBeUndefined()
  })

  it('keeps a request in full when an earlier message changed, or when a context handler may rewrite them', () => {
    const log = new RequestLog()
    log.record([user('a', 1), user('b', 2)], true)
    const rewritten = [user('summary', 5), user('c', 6)]
    expect(log.record(rewritten, true)).toEqual({ base: undefined, tail: rewritten })
    const handled = [...copyOf(rewritten), user('d', 7)]
    expect(log.record(handled, false)).toEqual({ base: undefined, tail: handled })
    expect(messagesOf(log.record([...copyOf(handled), user('e', 8)], true)).map((m) => m.timestamp)).toEqual([5, 6, 7, 8])
  })

  it("does not hold on to a request's copy of the transcript once its new messages are kept", async () => {
    v8.setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const log = new RequestLog()
    const first = [user('a', 1)]
    log.record(first, true)
    // The second request's copy of the first message is in no record: only the copy holds it.
    const copied = (() => {
      const second = [...copyOf(first), user('b', 2)]
      log.record(second, true)
      return new WeakRef(second[0]!)
    })()
    // A WeakRef's target is kept until the job that made it ends.
    await new Promise((resolve) => setTimeout(resolve, 0))
    gc()
    expect(copied.deref()).toBeUndefined()
  })
})
