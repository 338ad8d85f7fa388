// The extensions' lane of the script: answers for the model calls extensions make themselves
// (`complete(ctx.model, …)`), served in the order they ask, apart from the agent's steps.
import type { Context } from '../pi/types.js'
import { stepsOf, type Step } from './steps.js'
import type { ExtensionAnswersAction } from './script.js'

/** A model call an extension made itself, and who made it as far as the call stack tells. */
export interface ExtensionRequest {
  context: Context
  /** The extension's file (`<inline:N>` for an inline factory); undefined when the stack does not tell. */
  extensionPath: string | undefined
  /** The caller's abort signal: aborted before the call, it is answered `aborted` and takes no answer. */
  signal?: AbortSignal | undefined
}

export class ExtensionLane {
  private steps: Step[] = []
  private next = 0
  /** Answers served over the session's life: the number of the next request. */
  private served = 0

  /** The running turn's answers, in order (each forExtension(...) groups its own thinking blocks). */
  load(actions: readonly ExtensionAnswersAction[]): void {
    this.steps = actions.flatMap((action) => stepsOf(action.actions))
    this.next = 0
  }

  get size(): number {
    return this.steps.length
  }

  get used(): number {
    return this.next
  }

  get consumed(): number {
    return this.served
  }

  /** The next answer and its number in the session, or undefined when the turn has none left. */
  take(): { step: Step; number: number } | undefined {
    const step = this.steps[this.next]
    if (!step) return undefined
    this.next++
    return { step, number: ++this.served }
  }

  /** Ends the turn: the answers no extension asked for, numbered as they would have been served. */
  finish(): { step: Step; number: number }[] {
    const left = this.steps.slice(this.next).map((step, i) => ({ step, number: this.served + i + 1 }))
    this.steps = []
    this.next = 0
    return left
  }
}

/** `extension ./commit.ts asked the model: system "You write…", last user message "Write a commit…"` */
export function describeExtensionRequest({ context, extensionPath }: ExtensionRequest): string {
  const who = extensionPath === undefined ? 'an extension (the call stack names none of the loaded files)' : `extension ${extensionPath}`
  const text = lastUserText(context)
  const parts = [
    ...(context.systemPrompt ? [`system prompt ${clip(context.systemPrompt)}`] : []),
    text === undefined ? `${context.messages.length} message(s), none from the user` : `last user message ${clip(text)}`,
  ]
  return `${who} asked the model itself (not through the agent loop): ${parts.join(', ')}`
}

/** The text of the request's last user message (images as `[image]`), or undefined when it has none. */
export function lastUserText(context: Context): string | undefined {
  const last = [...context.messages].reverse().find((message) => message.role === 'user')
  if (last === undefined) return undefined
  return typeof last.content === 'string' ? last.content : last.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join(' ')
}

const clip = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text)

/** An extension's model call with no answer left in `turn` (which has `answers` forExtension(...) answers), or with no turn running. */
export function unscriptedCall(request: ExtensionRequest, turn: { index: number; prompt: string } | undefined, answers: number): Error {
  const where = turn
    ? `turn ${turn.index} (${JSON.stringify(turn.prompt)}) has ${answers === 0 ? 'no forExtension(...) answer' : `only ${answers} forExtension(...) answer(s)`}`
    : 'no turn is running (run(), command() or emit() script the answers for what they lead to)'
  return new Error(
    [
      `Unscripted model call: ${describeExtensionRequest(request)}; but ${where}.`,
      '  Script its answer in the turn that leads to it: when(prompt, [..., forExtension(says("..."))]),',
      '  t.command(name, args, [forExtension(...)]) or t.emit(event, payload, [forExtension(...)]).',
    ].join('\n'),
  )
}
