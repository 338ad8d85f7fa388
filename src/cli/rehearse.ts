// Runs the test codegen is about to write, once, in this process: the same script, mocks and checks, with
// the extension loaded as Pi loads it. A session file holds no dialog answers, so the rehearsal finds the
// confirm answers that make every call go as recorded (a call blocked where the user declined); and where
// Pi 0.73's file cannot tell a block from a failing tool, it learns which one the extension does.
import { isDeepStrictEqual } from 'node:util'
import { textOf } from '../records/records.js'
import type { ToolCallRecord, ToolResultRecord } from '../records/records.js'
import type { MockToolHandler, MockToolResult } from '../mocks/tools.js'
import { aborts, calls, fails, responds, says, thinks, when, type Action, type ToolCallAction, type Turn } from '../model/script.js'
import type { TestSession, TestSessionOptions } from '../session/create.js'
import { messageOf } from '../shared/errors.js'
import { withSession } from './probe.js'
import type { RecordedBlock, RecordedCall, Recording } from './recording.js'

/** What the extension decided about a call in the rehearsal. */
export interface Decision {
  readonly blocked: boolean
  readonly reason: string | undefined
  /** The result Pi gave the model (after the extension's tool_result handlers). */
  readonly text: string
  readonly isError: boolean
}

export interface Dialog {
  readonly method: string
  readonly title: string
  readonly answer: unknown
}

export interface Rehearsal {
  /** Why the script does not replay as recorded, when it does not. */
  readonly problem: string | undefined
  readonly decisions: ReadonlyMap<RecordedCall, Decision>
  /** The answers of the confirms, in the order they were asked. */
  readonly confirms: boolean[]
  /** Every dialog asked, with its answer. */
  readonly dialogs: Dialog[]
}

/** Bounds the search for confirm answers: each try flips the answers of the one call that went otherwise. */
const MAX_TRIES = 24

class Mismatch extends Error {
  constructor(
    readonly call: RecordedCall,
    /** Its place in the session's tool call records, which the dialogs asked are attributed by. */
    readonly callIndex: number,
    message: string,
  ) {
    super(message)
  }
}

export async function rehearse(dir: string, recording: Recording, options: TestSessionOptions): Promise<Rehearsal> {
  const confirms: boolean[] = []
  const flipped = new Set<number>()
  const relaxed = new Set<RecordedCall>()
  let last: Rehearsal | undefined
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const run = await once(dir, recording, options, confirms, relaxed)
    last = run.rehearsal
    if (!run.mismatch) return last
    const { mismatch, asked } = run
    // The confirms asked while the extension decided about the call that went otherwise.
    const mine = asked.filter((dialog) => dialog.method === 'confirm' && dialog.callIndex === mismatch.callIndex && !flipped.has(dialog.index))
    const flip = mine.at(-1)
    if (flip) {
      flipped.add(flip.index)
      confirms[flip.index] = !(confirms[flip.index] ?? true)
    } else if (mismatch.error.call.outcome === 'ran or not run' && !relaxed.has(mismatch.error.call)) {
      // Pi 0.73's error result: not a block after all, but the tool's own error.
      relaxed.add(mismatch.error.call)
    } else {
      return last
    }
  }
  return { ...last!, problem: `no dialog answers found within ${MAX_TRIES} runs that replay the session as recorded; the last run: ${last!.problem}` }
}

interface AskedDialog {
  method: string
  /** The confirm's place among the confirms asked. */
  index: number
  /** The place, among the session's tool call records, of the call the dialog came during. */
  callIndex: number
}

async function once(dir: string, recording: Recording, options: TestSessionOptions, confirms: boolean[], relaxed: ReadonlySet<RecordedCall>) {
  const decisions = new Map<RecordedCall, Decision>()
  const asked: AskedDialog[] = []
  const dialogs: Dialog[] = []
  let session: TestSession | undefined
  const dialog =
    (method: string) =>
    // The answer's type is the method's: a confirm's boolean, the others dismissed (undefined).
    (title: string): never => {
      const index = method === 'confirm' ? asked.filter((d) => d.method === 'confirm').length : 0
      // Pi records a call as it starts, before its tool_call handlers decide: the dialog is about the last one.
      asked.push({ method, index, callIndex: (session?.events.toolCalls.length ?? 0) - 1 })
      const answer = method === 'confirm' ? (confirms[index] ?? true) : undefined
      if (method === 'confirm') confirms[index] = answer as boolean
      dialogs.push({ method, title, answer })
      return answer as never
    }
  const check = (call: RecordedCall) => (result: ToolResultRecord, record: ToolCallRecord | undefined) => {
    const blocked = record?.blocked === true
    decisions.set(call, { blocked, reason: record?.blockReason, text: result.text, isError: result.isError })
    const problem = differs(call, result, record, relaxed.has(call))
    // Its place among the decided calls (ids repeat across turns: the playbook numbers them per step).
    const callIndex = record ? session!.events.toolCalls.lastIndexOf(record) : -1
    if (problem) throw new Mismatch(call, callIndex, `${call.where}: ${problem}`)
  }
  let mismatch: { error: Mismatch; callIndex: number } | undefined
  let problem: string | undefined
  try {
    await withSession(
      dir,
      { ...options, mockTools: recordedMocks(recording), mockUI: { confirm: dialog('confirm'), select: dialog('select'), input: dialog('input'), editor: dialog('editor') } },
      async (t) => {
        session = t
        try {
          await t.run(...scriptOf(recording, check))
        } catch (error) {
          const found = mismatchIn(error)
          if (!found) throw error
          mismatch = { error: found, callIndex: found.callIndex }
          problem = found.message
        }
      },
    )
  } catch (error) {
    problem ??= messageOf(error)
  }
  return { rehearsal: { problem, decisions, confirms: confirms.slice(), dialogs } satisfies Rehearsal, mismatch, asked }
}

function mismatchIn(error: unknown): Mismatch | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) if (cause instanceof Mismatch) return cause
  return undefined
}

/** Whether the call went otherwise than recorded, and how; as replay() compares them. */
function differs(call: RecordedCall, result: ToolResultRecord, record: ToolCallRecord | undefined, relaxed: boolean): string | undefined {
  const text = textOf(call.result.content)
  const blocked = record?.blocked === true
  if (call.outcome === 'ran') return blocked ? `the recording ran it, the extension blocks it: ${JSON.stringify(record?.blockReason)}` : undefined
  if (blocked) return record?.blockReason === text ? undefined : `blocked with ${JSON.stringify(record?.blockReason)}, the recording with ${JSON.stringify(text)}`
  if (relaxed) return undefined
  // Not run in the recording (a block, or a call Pi refused itself): refused again is the same.
  if (!result.mocked && result.isError && result.text === text) return undefined
  return `the recording did not run it (${JSON.stringify(text)}), the extension lets it run`
}

/** The recording as a script, each call checked by `check`. */
export function scriptOf(recording: Recording, check: (call: RecordedCall) => Parameters<ToolCallAction['then']>[0]): Turn[] {
  const blockOf = (block: RecordedBlock) => {
    switch (block.kind) {
      case 'say':
        return says(block.text)
      case 'think':
        return thinks(block.text)
      case 'fail':
        return fails(block.message)
      case 'call':
        return calls(block.call.tool, block.call.params).then(check(block.call))
    }
  }
  return recording.turns.map((turn) =>
    when(
      turn.prompt,
      turn.steps.map((step): Action => {
        if (step.kind === 'abort') return aborts()
        const blocks = step.blocks.map(blockOf)
        return blocks.length === 1 && blocks[0]!.kind !== 'think' ? blocks[0]! : blocks.length === 0 ? says('') : responds(...blocks)
      }),
    ),
  )
}

/** Each tool answered with the result recorded for the same params, each result used once, in order. */
export function recordedMocks(recording: Recording): Record<string, MockToolHandler> {
  const byTool = new Map<string, RecordedCall[]>()
  for (const turn of recording.turns) {
    for (const step of turn.steps) {
      if (step.kind === 'abort') continue
      for (const block of step.blocks) if (block.kind === 'call') byTool.set(block.call.tool, [...(byTool.get(block.call.tool) ?? []), block.call])
    }
  }
  return Object.fromEntries(
    [...byTool].map(([tool, recorded]) => {
      const left = [...recorded]
      const mock = (params: Record<string, unknown>): MockToolResult => {
        const at = left.findIndex((call) => isDeepStrictEqual(call.params, params))
        if (at < 0) throw new Error(`${tool}(${JSON.stringify(params)}) is not a call of the recording: mock it yourself, or leave it out to run it`)
        return left.splice(at, 1)[0]!.result
      }
      return [tool, mock]
    }),
  )
}
