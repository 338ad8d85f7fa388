// What the harness learns of a turn from the child's events: which calls ran (a call the harness extension saw
// whose tool never ran was blocked), and when the agent ended.
import { textOf, type ToolContent } from '../records/records.js'

/**
 * Which calls passed their `tool_call` hooks, from what the harness extension (loaded first) saw: a call its
 * `tool_call` handler saw whose tool never ran (no `tool_result`) was blocked, with Pi's reason as the result.
 */
export class ToolCallWatch {
  readonly called = new Set<string>()
  readonly ran = new Set<string>()
  readonly modelRequests = new Map<number, AbortController>()

  decision(toolCallId: string, toolName: string, result: { content: ToolContent }) {
    const blocked = this.called.has(toolCallId) && !this.ran.has(toolCallId)
    return blocked ? { toolCallId, toolName, blocked, reason: textOf(result.content ?? []) } : { toolCallId, toolName, blocked }
  }
}

/** Resolves waiters on the next agent_end, or after `ms` at most (a state poll follows either way). */
export class Waiters {
  #waiting: (() => void)[] = []
  wake(): void {
    for (const resolve of this.#waiting.splice(0)) resolve()
  }
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      this.#waiting.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }
}
