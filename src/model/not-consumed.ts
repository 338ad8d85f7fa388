// "Playbook not consumed": what a turn left of its script, and the likeliest reason Pi stopped asking.

export interface LeftOver {
  /** The turn, as `turn N ("prompt")`. */
  name: string
  /** How far it got, as `K of N` steps. */
  ended: string
  lastConsumed: string
  /** The agent steps never asked for, described. */
  remaining: string[]
  /** The forExtension(...) answers no extension asked for, described. */
  unusedExtensionAnswers: string[]
  /** The messages Pi still holds queued, described. */
  queued: string[]
  /** The test called t.abort() during the turn. */
  abortedByTest: boolean
}

export function notConsumed({ name, ended, lastConsumed, remaining, unusedExtensionAnswers: unused, queued, abortedByTest }: LeftOver): string[] {
  const lines: string[] = []
  if (remaining.length > 0) {
    lines.push(`Playbook not consumed: ${name} ended after ${ended} step(s).`, `  Last consumed: ${lastConsumed}`, '  Remaining:', ...remaining.map((step) => `    ${step}`))
  }
  if (unused.length > 0) {
    lines.push(
      `${remaining.length > 0 ? 'And' : 'Playbook not consumed:'} ${unused.length} forExtension(...) answer(s) of ${name} were never asked for: no extension called the model itself that often.`,
      ...unused.map((answer) => `    ${answer}`),
    )
  }
  if (queued.length > 0) {
    lines.push(
      `Pi still holds ${queued.length} queued message(s) that no turn delivered: ${queued.join('; ')}.`,
      'A message sent while the agent is finishing (pi.sendMessage(..., { triggerTurn: true }) or pi.sendUserMessage(...) from an',
      'agent_end handler) is queued as a follow-up; Pi 0.73 delivers it only with the next prompt, so the turn that would take',
      'the remaining steps never starts: move them to the next when(...), whose prompt delivers it.',
    )
  } else if (remaining.length > 0 && abortedByTest) {
    lines.push('The test called t.abort() during this turn, and Pi stopped it there: script only the steps before the abort in this when(...).')
  } else if (remaining.length > 0) {
    lines.push(
      'Pi stopped asking the model before the script ran out: a tool call may have been blocked or failed,',
      'an extension may have handled the prompt, or a step may have ended the turn early (says(...), fails(...) or aborts()).',
    )
  }
  return lines
}
