import { describe, expect, it } from 'vitest'
import { OUTPUT_TAIL_BYTES, OutputTail, sanitizeOutput } from '../../src/project/output-tail.js'

describe('OutputTail', () => {
  it('defaults to 12 KiB', () => {
    expect(new OutputTail().capacity).toBe(12_288)
    expect(OUTPUT_TAIL_BYTES).toBe(12_288)
  })

  it('keeps exactly the newest bytes across wraps, whatever the chunk sizes', () => {
    const tail = new OutputTail(16)
    const everything: number[] = []
    const chunkSizes = [1, 3, 15, 16, 17, 0, 5, 40, 2, 9, 16, 7]
    let next = 0
    for (const size of chunkSizes) {
      const chunk = Uint8Array.from({ length: size }, () => next++ % 251)
      everything.push(...chunk)
      tail.push(chunk)
      expect([...tail.bytes()]).toEqual(everything.slice(-16))
    }
    expect(tail.totalBytes).toBe(everything.length)
  })

  it('keeps everything while under capacity, including a leading continuation byte', () => {
    const tail = new OutputTail(16)
    tail.push(Buffer.from([0x82, 0x41]))
    expect(tail.text()).toBe('\uFFFDA')
  })

  it('drops a cut character only once output was truncated', () => {
    const tail = new OutputTail(7)
    tail.push(Buffer.from('ab€cdefg', 'utf8'))
    expect(tail.bytes()).toHaveLength(7)
    expect(tail.text()).toBe('cdefg')
  })
})

describe('sanitizeOutput', () => {
  it('removes terminal sequences and unsafe controls but keeps text, tabs and newlines', () => {
    expect(sanitizeOutput('\x1b[2J\x1b[Hok\x1b]2;title\x1b\\\x1bPq#0\x1b\\ \u009b1mbold\u009b0m\ttab\n')).toBe('ok bold\ttab\n')
  })

  it('normalises CRLF and lone CR to newlines', () => {
    expect(sanitizeOutput('a\r\nb\rc\r\r\n')).toBe('a\nb\nc\n\n')
  })

  it('removes every C0 control except tab and newline, DEL and every C1 control', () => {
    const controls = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)).join('')
    const c1 = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(0x80 + code)).join('')
    expect(sanitizeOutput(`x${controls}\x7f${c1}y`)).toBe('x\t\n\ny')
  })
})
