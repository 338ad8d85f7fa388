// Pi's RPC protocol from the client's side: commands on the child's stdin, one JSON object a line; responses
// (matched by id), session events and extension UI requests on its stdout. Any other line on stdout is
// something in the child printing outside the protocol: it is kept, named, and fails the session.
import type { Readable, Writable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'

export interface RpcRecord {
  type: string
  [key: string]: unknown
}

export interface RpcResponse {
  type: 'response'
  id?: string
  command: string
  success: boolean
  data?: unknown
  error?: string
}

export interface RpcHandlers {
  /** A session event or extension UI request, in the order Pi wrote it. */
  onRecord(record: RpcRecord): void
  /** A line of stdout that is not a protocol record. */
  onStrayLine(line: string): void
}

export class RpcClient {
  readonly #pending = new Map<string, { command: string; resolve: (response: RpcResponse) => void; reject: (error: Error) => void }>()
  #nextId = 0
  #closed: Error | undefined

  constructor(
    private readonly stdin: Writable,
    stdout: Readable,
    private readonly handlers: RpcHandlers,
  ) {
    readLines(stdout, (line) => this.#receive(line))
  }

  /** Sends `command` and resolves with Pi's response to it (a failed command rejects, with Pi's error). */
  async request(command: RpcRecord): Promise<RpcResponse> {
    const response = await this.requestRaw(command)
    if (!response.success) throw new Error(`Pi refused the RPC command "${command.type}": ${response.error ?? 'no reason given'}`)
    return response
  }

  requestRaw(command: RpcRecord): Promise<RpcResponse> {
    if (this.#closed) return Promise.reject(this.#closed)
    const id = `harness-${++this.#nextId}`
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { command: command.type, resolve, reject })
      this.send({ ...command, id })
    })
  }

  /** Writes a record that has no response (an extension UI answer). */
  send(record: RpcRecord): void {
    if (this.#closed) return
    this.stdin.write(`${JSON.stringify(record)}\n`)
  }

  /** No more responses will come: every waiting command rejects with `reason`. */
  close(reason: Error): void {
    this.#closed ??= reason
    for (const [id, { reject }] of this.#pending) {
      this.#pending.delete(id)
      reject(reason)
    }
  }

  #receive(line: string): void {
    if (line.trim() === '') return
    let record: unknown
    try {
      record = JSON.parse(line)
    } catch {
      this.handlers.onStrayLine(line)
      return
    }
    if (typeof record !== 'object' || record === null || typeof (record as RpcRecord).type !== 'string') {
      this.handlers.onStrayLine(line)
      return
    }
    const typed = record as RpcRecord
    if (typed.type === 'response' && typeof typed.id === 'string' && this.#pending.has(typed.id)) {
      const waiting = this.#pending.get(typed.id)!
      this.#pending.delete(typed.id)
      waiting.resolve(typed as unknown as RpcResponse)
      return
    }
    this.handlers.onRecord(typed)
  }
}

/** Splits on LF only, as Pi's framing says (readline would also split inside JSON strings, at U+2028). */
function readLines(stream: Readable, onLine: (line: string) => void): void {
  const decoder = new StringDecoder('utf8')
  let buffer = ''
  stream.on('data', (chunk: Buffer) => {
    buffer += decoder.write(chunk)
    for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
      const line = buffer.slice(0, at)
      buffer = buffer.slice(at + 1)
      onLine(line.endsWith('\r') ? line.slice(0, -1) : line)
    }
  })
  stream.on('end', () => {
    buffer += decoder.end()
    if (buffer !== '') onLine(buffer)
    buffer = ''
  })
}
