// replay(file): a Pi session recorded with a real model, as a script. Each user prompt is a turn, each
// assistant message one step (its blocks in order, its tool calls with their recorded ids), and the
// recorded tool results answer the tools. A call that goes otherwise now (refused where it ran: blocked,
// an unknown tool, rejected arguments; run where it was refused) fails the run, naming the turn and step.
import { fileURLToPath } from 'node:url'
import { StepCheckFailed } from '../model/playbook.js'
import { aborts, callsWithId, fails, responds, says, thinks, when, type Action, type RespondAction, type ResultCallback, type ToolCallAction, type ToolParams, type Turn } from '../model/script.js'
import { textOf, type ToolContent } from '../records/records.js'
import { readSessionFile, SessionFileError, type SessionFileEntry } from '../records/session-file.js'
import { describeValue } from '../shared/errors.js'
import { UnansweredToolCall, type MockToolHandler, type MockToolResult } from './tools.js'

export interface Cassette {
  /** The session file, as given. */
  readonly file: string
  /** One `when(prompt, steps)` per user prompt of the recording, for `t.run(...cassette.turns)`. */
  readonly turns: Turn[]
  /**
   * The recorded results, for every tool the recording called, each answering the call with its recorded id.
   * Spread your own over them to answer a tool otherwise; leave a tool out to run it.
   */
  readonly mockTools: Record<string, MockToolHandler>
}

interface RecordedResult {
  readonly line: number
  readonly content: ToolContent
  readonly details: unknown
  readonly isError: boolean
  /** Pi 1.x writes `durationMs` for a call that ran, none for one it did not (blocked, unknown, invalid). */
  readonly durationMs: number | undefined
}

interface RecordedCall {
  readonly id: string
  readonly tool: string
  readonly params: ToolParams
  /** Where the call is: `turn 1 ("clean up"), step 2 (session.jsonl:5)`. */
  readonly where: string
  readonly line: number
  result?: RecordedResult
}

type Message = { role?: unknown; content?: unknown; stopReason?: unknown; errorMessage?: unknown; toolCallId?: unknown }

/** Reads the session file and turns it into a script, tool mocks and the checks that compare the replay with it. */
export function replay(file: string | URL): Cassette {
  const path = typeof file === 'string' ? file : fileURLToPath(file)
  const problem = (line: number, text: string) => new SessionFileError(path, line, text)
  const turns: { prompt: string; line: number; actions: Action[]; awaitsAnswer: number | undefined; retried: boolean }[] = []
  const calls = new Map<string, RecordedCall>()
  let step = 0
  /** Whether the file tells a call that ran from one Pi did not run (Pi 1.x's `durationMs`); known once the file is read. */
  let marksRuns = false
  const endTurn = () => {
    const turn = turns.at(-1)
    if (turn?.awaitsAnswer !== undefined) {
      throw problem(turn.awaitsAnswer, `turn ${turns.length} (${JSON.stringify(turn.prompt)}) ends with these tool calls' results and no answer of the model to them: the recording stops in the middle of a turn`)
    }
  }

  for (const { line, entry } of readSessionFile(path)) {
    if (entry.type === 'compaction' || entry.type === 'branch_summary') {
      throw problem(line, `a ${entry.type} entry: replay does not replay Pi's summaries; record a session without compaction or tree navigation`)
    }
    // Model and thinking-level changes, labels, and the entries and messages extensions write (they write them again).
    if (entry.type !== 'message') continue
    const message = messageOf(entry, () => problem(line, 'a message entry without a message object'))
    if (message.role === 'user') {
      endTurn()
      turns.push({ prompt: promptOf(message, (text) => problem(line, text)), line, actions: [], awaitsAnswer: undefined, retried: false })
    } else if (message.role === 'assistant') {
      const turn = turns.at(-1)
      if (!turn) throw problem(line, 'the model answers before any user prompt: replay starts each turn at a user message')
      // Pi retried after a provider error (auto-retry): the harness does not retry, so the failed attempt is not replayed.
      if (turn.retried) {
        turn.actions.pop()
        step--
      }
      const where = `turn ${turns.length} (${JSON.stringify(turn.prompt)}), step ${++step} (${path}:${line})`
      const action = stepOf(message, {
        at: (text) => problem(line, text),
        call: (id, tool, params) => {
          if (calls.has(id)) throw problem(line, `tool call id ${JSON.stringify(id)} is used twice (also at line ${calls.get(id)!.line})`)
          const call: RecordedCall = { id, tool, params, where, line }
          calls.set(id, call)
          return callsWithId(id, tool, params).then(checkCall(call, () => marksRuns))
        },
      })
      turn.actions.push(action)
      turn.awaitsAnswer = message.stopReason === 'toolUse' ? line : undefined
      turn.retried = message.stopReason === 'error'
    } else if (message.role === 'toolResult') {
      const call = typeof message.toolCallId === 'string' ? calls.get(message.toolCallId) : undefined
      if (!call) throw problem(line, `a tool result for call ${JSON.stringify(message.toolCallId)}, which no assistant message before it made`)
      if (call.result) throw problem(line, `a second result for call ${call.id} (the first at line ${call.result.line})`)
      call.result = resultOf(message, line, (text) => problem(line, text))
      if (call.result.durationMs !== undefined) marksRuns = true
    }
    // Other roles (Pi 1.x's system messages, `!` shell runs, summaries) are not the model's: nothing to replay.
  }
  const unanswered = [...calls.values()].find((call) => !call.result)
  if (unanswered) throw problem(unanswered.line, `tool call ${unanswered.id} (${unanswered.tool}) has no result in the session: a recording ends each call with its result`)
  endTurn()
  return {
    file: path,
    turns: turns.map((turn) => when(turn.prompt, turn.actions)),
    mockTools: recordedMocks(path, calls),
  }
}

function messageOf(entry: SessionFileEntry, missing: () => Error): Message {
  const { message } = entry
  if (typeof message !== 'object' || message === null) throw missing()
  return message as Message
}

function promptOf({ content }: Message, problem: (text: string) => Error): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) throw problem('a user message without content')
  if (content.some((block) => (block as { type?: unknown })?.type !== 'text')) {
    throw problem('the prompt has a block that is not text (an image?): replay sends text prompts')
  }
  return content.map((block) => String((block as { text?: unknown }).text ?? '')).join('\n')
}

type Build = {
  at(text: string): Error
  call(id: string, tool: string, params: ToolParams): ToolCallAction
}

/** One assistant message as one step: its blocks in order, and how it ended. */
function stepOf(message: Message, build: Build): Action {
  const { content, stopReason } = message
  if (!Array.isArray(content)) throw build.at('an assistant message without a content array')
  // Esc while the model answered: what it had sent is not replayed, the abort is.
  if (stopReason === 'aborted') return aborts()
  if (stopReason !== 'stop' && stopReason !== 'toolUse' && stopReason !== 'error') {
    throw build.at(`the assistant message ended with stop reason ${JSON.stringify(stopReason)}; replay scripts "stop", "toolUse", "error" and "aborted"`)
  }
  const blocks = content.map((block: Record<string, unknown>, index): RespondAction['actions'][number] => {
    if (block?.type === 'text') return says(String(block.text ?? ''))
    if (block?.type === 'thinking') return thinks(String(block.thinking ?? ''))
    if (block?.type === 'toolCall') {
      const { id, name, arguments: params } = block
      if (typeof id !== 'string' || typeof name !== 'string' || typeof params !== 'object' || params === null || Array.isArray(params)) {
        throw build.at(`content[${index}] is a tool call without a string id, a name and an object of arguments`)
      }
      // Pi runs no tool of a message that failed: such a call has no result to answer it.
      return stopReason === 'error' ? callsWithId(id, name, params as ToolParams) : build.call(id, name, params as ToolParams)
    }
    throw build.at(`content[${index}] is a ${JSON.stringify(block?.type)} block; an assistant message has text, thinking and toolCall blocks`)
  })
  if (stopReason === 'error') blocks.push(fails(typeof message.errorMessage === 'string' ? message.errorMessage : 'error'))
  // A lone thinking block would join the next step: one message is one step.
  if (blocks.length === 1 && blocks[0]!.kind !== 'think') return blocks[0]!
  return blocks.length === 0 ? { kind: 'respond', actions: [] } : responds(...blocks)
}

function resultOf(message: Message, line: number, problem: (text: string) => Error): RecordedResult {
  const { content, details, isError, durationMs } = message as Message & { details?: unknown; isError?: unknown; durationMs?: unknown }
  if (!Array.isArray(content)) throw problem('a tool result without a content array')
  return { line, content: content as ToolContent, details, isError: isError === true, durationMs: typeof durationMs === 'number' ? durationMs : undefined }
}

/** Each tool's calls answered by their recorded results, found by the call's id. */
function recordedMocks(file: string, calls: ReadonlyMap<string, RecordedCall>): Record<string, MockToolHandler> {
  const mocks: Record<string, MockToolHandler> = {}
  for (const tool of new Set([...calls.values()].map((call) => call.tool))) {
    mocks[tool] = (params, { toolCallId }): MockToolResult => {
      const call = calls.get(toolCallId)
      if (!call?.result || call.tool !== tool) {
        throw new UnansweredToolCall(
          `Unhandled tool call ${tool}(${describeValue(params)}) (toolCallId ${toolCallId}): ${file} has no such call, and its results answer only the recording's own calls; ` +
            `mock "${tool}" for the test's own ({ ...cassette.mockTools, ${tool}: ... }) or leave it out to run it`,
        )
      }
      const { content, details, isError } = call.result
      return { content, details, isError }
    }
  }
  return mocks
}

/** How the recorded call went, as far as the file tells. */
type RecordedOutcome = 'ran' | 'not run' | 'ran or not run'

function recordedOutcome(result: RecordedResult, marksRuns: boolean): RecordedOutcome {
  if (!result.isError || result.durationMs !== undefined) return 'ran'
  return marksRuns ? 'not run' : 'ran or not run'
}

const quoted = (text: string) => JSON.stringify(text.length > 120 ? `${text.slice(0, 117)}...` : text)

/** Compares what the extension decides now about a replayed call with what the recording shows. */
function checkCall(call: RecordedCall, marksRuns: () => boolean): ResultCallback {
  return (result, record, ran) => {
    const recorded = call.result!
    const text = textOf(recorded.content)
    const outcome = recordedOutcome(recorded, marksRuns())
    const blocked = record?.blocked === true
    const then =
      outcome === 'ran'
        ? `it ran and returned ${recorded.isError ? 'the error ' : ''}${quoted(text)} (line ${recorded.line})`
        : outcome === 'not run'
          ? `Pi did not run it (a block, or a call Pi refused): ${quoted(text)} (line ${recorded.line})`
          : `it ended with the error ${quoted(text)} (line ${recorded.line})`
    const now = blocked
      ? `the extension blocked it: ${quoted(record.blockReason ?? '')}`
      : ran
        ? `it ran and returned ${result.isError ? 'the error ' : ''}${quoted(result.text)}`
        : `Pi did not run it (a tool missing, arguments it rejects): ${quoted(result.text)}`
    // Refused now (blocked or not run), it differs from a run, and from a refusal that said otherwise.
    const refusedNow = blocked || !ran
    const refusal = blocked ? (record.blockReason ?? '') : result.text
    const differs = refusedNow ? outcome === 'ran' || refusal !== text : outcome === 'not run'
    if (!differs) return
    throw new StepCheckFailed(
      [
        `Replay differs from the recording at ${call.where}: call ${call.id} ${call.tool}(${JSON.stringify(call.params)})`,
        `  recorded: ${then}`,
        `  now: ${now}`,
        ...(!blocked && !ran
          ? [`Pi refuses the call now: is "${call.tool}" still registered with these arguments? Keep its mock (cassette.mockTools), or record the session anew.`]
          : [
              'The extension decides otherwise than when the session was recorded (a dialog answered otherwise, a changed tool_call',
              'handler): answer the dialogs as they were (mockUI), or record the session anew.',
            ]),
      ].join('\n'),
    )
  }
}
