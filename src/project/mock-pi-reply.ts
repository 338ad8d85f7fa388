// What the fake `pi` answers: a response checked once, in the test's process, and Pi's JSON-mode lines.
import { describeReceived } from '../shared/errors.js'

export interface MockPiResponse {
  /** Written to stdout. */
  output?: string
  /** Answers as `pi --mode json` does: the event lines of one turn whose assistant message says this text. */
  json?: string
  /** Objects written to stdout one JSON document per line (Pi's `--mode json`). */
  jsonl?: unknown[]
  stderr?: string
  exitCode?: number
  /** Milliseconds to wait before answering. */
  delay?: number
  /** Files to write, relative to the caller's cwd, before answering. */
  writeFiles?: Record<string, string>
}

/** What the executable is handed: `json` already turned into lines. */
export type ChildResponse = Omit<MockPiResponse, 'json'>

const CHECKS: Record<keyof MockPiResponse, [test: (value: unknown) => boolean, expected: string]> = {
  output: [(value) => typeof value === 'string', 'a string'],
  json: [(value) => typeof value === 'string', 'a string'],
  jsonl: [Array.isArray, 'an array'],
  stderr: [(value) => typeof value === 'string', 'a string'],
  exitCode: [(value) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 255, 'an integer from 0 to 255'],
  delay: [(value) => typeof value === 'number' && Number.isFinite(value) && value >= 0, 'a number of milliseconds, 0 or more'],
  writeFiles: [(value) => isRecord(value) && Object.values(value).every((text) => typeof text === 'string'), 'an object of file paths to strings'],
}

export const RESPONSE_KEYS = Object.keys(CHECKS) as (keyof MockPiResponse)[]

/** `value` checked as a response and made ready for the executable; a wrong one throws a TypeError starting with `where`. */
export function childResponse(value: unknown, where: string): ChildResponse {
  if (!isRecord(value)) throw new TypeError(`${where}: expected a response object ({ ${RESPONSE_KEYS.join(', ')} }), got ${describeReceived(value)}`)
  const unknown = Object.keys(value).filter((key) => !(key in CHECKS))
  if (unknown.length > 0) throw new TypeError(`${where}: unknown key(s) ${unknown.join(', ')}; known: ${RESPONSE_KEYS.join(', ')}`)
  for (const key of RESPONSE_KEYS) {
    const [test, expected] = CHECKS[key]
    if (value[key] !== undefined && !test(value[key])) throw new TypeError(`${where}: ${key} must be ${expected}, got ${describeReceived(value[key])}`)
  }
  const { json, ...rest } = value as MockPiResponse
  if (json === undefined) return rest
  if (rest.jsonl !== undefined) throw new TypeError(`${where}: give json or jsonl, not both`)
  return { ...rest, jsonl: jsonModeLines(json) }
}

/**
 * The lines `pi --mode json -p <task>` prints for a turn answered with `text`, from `agent_start` to
 * `agent_end`, with the assistant message as Pi's `message_end` carries it; left out: the session header,
 * the user message's own lines and the streaming `message_update` lines.
 */
export function jsonModeLines(text: string): unknown[] {
  const message = {
    role: 'assistant',
    content: [{ type: 'text', text }],
    api: 'mock-pi',
    provider: 'mock-pi',
    model: 'mock-pi',
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: 'stop',
    timestamp: Date.now(),
  }
  return [
    { type: 'agent_start' },
    { type: 'turn_start' },
    // Pi starts the message empty and fills it as the stream arrives.
    { type: 'message_start', message: { ...message, content: [] } },
    { type: 'message_end', message },
    { type: 'turn_end', message, toolResults: [] },
    { type: 'agent_end', messages: [message] },
  ]
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
