import ansiRegex from 'ansi-regex'

/** How many raw bytes of combined output a run keeps. */
export const OUTPUT_TAIL_BYTES = 12 * 1024

const TERMINAL_SEQUENCE = ansiRegex()
// \r is normalised before this runs, so only \t and \n survive from C0.
const UNSAFE_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g
const UTF8_CONTINUATION_MASK = 0xc0
const UTF8_CONTINUATION_BITS = 0x80
const UTF8_MAX_CONTINUATION_BYTES = 3

/**
 * Keeps the newest `capacity` bytes of a byte stream in a fixed ring buffer,
 * so memory stays constant however much a process prints.
 */
export class OutputTail {
  readonly capacity: number
  readonly #ring: Buffer
  #writeAt = 0
  #wrapped = false
  #totalBytes = 0

  constructor(capacity = OUTPUT_TAIL_BYTES) {
    this.capacity = capacity
    this.#ring = Buffer.alloc(capacity)
  }

  /** Every byte ever pushed, including those the ring has overwritten. */
  get totalBytes(): number {
    return this.#totalBytes
  }

  push(chunk: Uint8Array): void {
    this.#totalBytes += chunk.length
    if (chunk.length >= this.capacity) {
      this.#ring.set(chunk.subarray(chunk.length - this.capacity))
      this.#writeAt = 0
      this.#wrapped = true
      return
    }
    const untilEnd = Math.min(chunk.length, this.capacity - this.#writeAt)
    this.#ring.set(chunk.subarray(0, untilEnd), this.#writeAt)
    this.#ring.set(chunk.subarray(untilEnd), 0)
    const next = this.#writeAt + chunk.length
    if (next >= this.capacity) this.#wrapped = true
    this.#writeAt = next % this.capacity
  }

  /** The kept bytes, oldest first. */
  bytes(): Buffer {
    if (!this.#wrapped) return Buffer.from(this.#ring.subarray(0, this.#writeAt))
    return Buffer.concat([this.#ring.subarray(this.#writeAt), this.#ring.subarray(0, this.#writeAt)])
  }

  /** The kept bytes as sanitized text, without the remains of a character cut at the start. */
  text(): string {
    let bytes = this.bytes()
    if (this.#totalBytes > this.capacity) bytes = dropCutCharacter(bytes)
    return sanitizeOutput(bytes.toString('utf8'))
  }
}

function dropCutCharacter(bytes: Buffer): Buffer {
  let start = 0
  while (
    start < UTF8_MAX_CONTINUATION_BYTES &&
    start < bytes.length &&
    (bytes[start] & UTF8_CONTINUATION_MASK) === UTF8_CONTINUATION_BITS
  ) {
    start++
  }
  return bytes.subarray(start)
}

/**
 * Makes process output safe to show or hand to a model: strips terminal
 * sequences (CSI, OSC, DCS, ...) and control characters, normalises newlines.
 */
export function sanitizeOutput(text: string): string {
  return (
    text
      .replace(TERMINAL_SEQUENCE, '')
      .replace(/\r\n/g, '\n')
      // A lone \r would overwrite the line on a terminal; a newline keeps both texts visible.
      .replace(/\r/g, '\n')
      .replace(UNSAFE_CONTROL, '')
  )
}
