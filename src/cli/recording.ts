// A session file as codegen reads it: replay()'s own reading (turns, steps, recorded results), plus what a
// generated test needs to say where each call was and how it went. A file replay cannot read past a point
// (a compaction, a branch summary) is read up to that point, and the note says so.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { replay } from '../mocks/replay.js'
import type { MockToolHandler, MockToolResult } from '../mocks/tools.js'
import type { Action, ToolParams } from '../model/script.js'
import { readSessionFile, SessionFileError, type LocatedEntry } from '../records/session-file.js'
import { messageOf } from '../shared/errors.js'
import { CliError } from './errors.js'

/** How the recording shows a call went: it ran, Pi did not run it (Pi 1.x marks runs), or the file cannot tell (an error result on 0.73). */
export type RecordedOutcome = 'ran' | 'not run' | 'ran or not run'

export interface RecordedCall {
  readonly tool: string
  readonly params: ToolParams
  readonly result: { content: MockToolResult['content']; details?: unknown; isError: boolean }
  readonly outcome: RecordedOutcome
  /** `turn 2 ("Clear dist"), step 1 (cleanup.jsonl:12)`. */
  readonly where: string
}

export type RecordedBlock = { kind: 'say' | 'think'; text: string } | { kind: 'fail'; message: string } | { kind: 'call'; call: RecordedCall }
export type RecordedStep = { kind: 'abort' } | { kind: 'message'; blocks: RecordedBlock[] }

export interface RecordedTurn {
  readonly prompt: string
  readonly steps: RecordedStep[]
}

export interface Recording {
  readonly turns: RecordedTurn[]
  /** What was not converted, and why: said in the output and in the test. */
  readonly notes: string[]
}

/** Reads the file as replay() does; stops before a compaction or branch summary, with a note. */
export function readRecording(file: string): Recording {
  const entries = readSessionFile(file)
  const notes: string[] = []
  const lines = readFileSync(file, 'utf8').split('\n')
  const onBranch = entries.length
  const all = lines.slice(1).filter((line) => line.trim() !== '').length
  if (all > onBranch) {
    notes.push(`${all - onBranch} entries of ${basename(file)} are on other branches (/tree, /fork): the test follows the branch that ends at the last entry, as Pi resumes the session`)
  }
  const stop = entries.find(({ entry }) => entry.type === 'compaction' || entry.type === 'branch_summary')
  if (!stop) return { turns: turnsOf(file, file, entries), notes }
  let kept = entries.filter(({ line }) => line < stop.line)
  // A turn cut off before its answer is left out whole.
  const lastAssistant = [...kept].reverse().find(({ entry }) => roleOf(entry) === 'assistant' || roleOf(entry) === 'user')
  if (lastAssistant && (roleOf(lastAssistant.entry) === 'user' || stopReasonOf(lastAssistant.entry) === 'toolUse')) {
    const lastUser = [...kept].reverse().find(({ entry }) => roleOf(entry) === 'user')
    if (lastUser) kept = kept.filter(({ line }) => line < lastUser.line)
  }
  notes.push(
    `${basename(file)}:${stop.line}: a ${stop.entry.type} entry (Pi's ${stop.entry.type === 'compaction' ? 'summary of the conversation' : 'summary of a branch left'}): ` +
      'replay does not replay Pi\'s summaries, so the test covers the session up to that point only',
  )
  // The kept lines at their own line numbers (the others blank), so every message still names the file's lines.
  const dir = mkdtempSync(join(tmpdir(), 'vitest-pi-codegen-'))
  try {
    const cut = join(dir, basename(file))
    const keep = new Set([1, ...kept.map(({ line }) => line)])
    writeFileSync(cut, lines.map((text, index) => (keep.has(index + 1) ? text : '')).join('\n'))
    return { turns: turnsOf(cut, file, kept), notes }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const messageField = (entry: LocatedEntry['entry'], field: string): unknown =>
  entry.type === 'message' && typeof entry.message === 'object' && entry.message !== null ? (entry.message as Record<string, unknown>)[field] : undefined
const roleOf = (entry: LocatedEntry['entry']) => messageField(entry, 'role')
const stopReasonOf = (entry: LocatedEntry['entry']) => messageField(entry, 'stopReason')

/** replay()'s turns of `read` (the file or its cut), with each call's recorded result, outcome and place. */
function turnsOf(read: string, shown: string, entries: LocatedEntry[]): RecordedTurn[] {
  let cassette: ReturnType<typeof replay>
  try {
    cassette = replay(read)
  } catch (error) {
    if (error instanceof SessionFileError) throw new CliError(messageOf(error).replaceAll(read, shown))
    throw error
  }
  // Which line holds each call, and what the file says of its result (Pi 1.x writes durationMs for a call that ran).
  const callLine = new Map<string, number>()
  const durations = new Map<string, unknown>()
  for (const { line, entry } of entries) {
    const content = messageField(entry, 'content')
    if (roleOf(entry) === 'assistant' && Array.isArray(content)) {
      for (const block of content as { type?: unknown; id?: unknown }[]) if (block?.type === 'toolCall' && typeof block.id === 'string') callLine.set(block.id, line)
    }
    if (roleOf(entry) === 'toolResult') durations.set(String(messageField(entry, 'toolCallId')), messageField(entry, 'durationMs'))
  }
  const marksRuns = [...durations.values()].some((duration) => typeof duration === 'number')
  return cassette.turns.map((turn, t) => ({
    prompt: turn.prompt,
    steps: turn.actions.map((action, s): RecordedStep => {
      const where = (id?: string) =>
        `turn ${t + 1} (${JSON.stringify(turn.prompt)}), step ${s + 1}${id && callLine.has(id) ? ` (${basename(shown)}:${callLine.get(id)})` : ''}`
      const block = (inner: Action): RecordedBlock[] => {
        switch (inner.kind) {
          case 'say':
          case 'think':
            return [{ kind: inner.kind, text: inner.text }]
          case 'fail':
            return [{ kind: 'fail', message: inner.message }]
          case 'respond':
            return inner.actions.flatMap(block)
          case 'parallel':
            return inner.calls.flatMap(block)
          case 'call': {
            const id = inner.id!
            const params = inner.params as ToolParams
            const result = answer(cassette.mockTools[inner.tool], params, id)
            const duration = durations.get(id)
            const outcome: RecordedOutcome = !result.isError || typeof duration === 'number' ? 'ran' : marksRuns ? 'not run' : 'ran or not run'
            return [{ kind: 'call', call: { tool: inner.tool, params, result, outcome, where: where(id) } }]
          }
          default:
            throw new CliError(`${shown}: turn ${t + 1}, step ${s + 1}: a ${inner.kind} step, which codegen does not write`)
        }
      }
      return action.kind === 'abort' ? { kind: 'abort' } : { kind: 'message', blocks: block(action) }
    }),
  }))
}

/** The recorded result of call `id`, as the cassette's mock answers it. */
function answer(mock: MockToolHandler | undefined, params: ToolParams, id: string): RecordedCall['result'] {
  if (typeof mock !== 'function') throw new Error(`replay() gave no recorded answer for call ${id}`)
  const result = mock(params, { toolCallId: id, signal: undefined }) as MockToolResult
  return { content: result.content, ...(result.details === undefined ? {} : { details: result.details }), isError: result.isError === true }
}
