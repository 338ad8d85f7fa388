// Which tools the model called, how often, in what order, and which calls an extension blocked.
import type { MatcherState } from 'vitest'
import type { SessionRecords, ToolCallRecord } from '../src/records/records.js'
import { requireReceived } from './receiver.js'
import { report, type MatcherOutcome } from './report.js'
import { callsOf, theseCalls } from './timeline.js'
import { callLine, equals, isPlainObject, matchesText, matchesValue, numbered, printExpectedLine, printReceivedLine, type TextMatcher } from './text.js'

/** `.map(describeCall(this))`: a call as one line, its block reason after it. */
const describeCall = (state: MatcherState) => (call: ToolCallRecord) =>
  callLine(state, call.toolName, call.input, call.blocked ? ` [blocked: ${call.blockReason}]` : '')

/** Every call of the session, or a note that there was none. */
export function allCalls(state: MatcherState, events: SessionRecords): string {
  if (events.toolCalls.length === 0) return 'No tool was called.'
  return `Tools called (${events.toolCalls.length}):\n${numbered(events.toolCalls.map(describeCall(state)))}`
}

/** The call sharing the most top-level values with `params`: the one a diff explains best. */
function closestCall(state: MatcherState, calls: ToolCallRecord[], params: Record<string, unknown>): ToolCallRecord | undefined {
  let best: ToolCallRecord | undefined
  let bestScore = -1
  for (const call of calls) {
    const score = Object.entries(params).filter(([key, value]) => equals(state, call.input[key], value)).length
    if (score > bestScore) [best, bestScore] = [call, score]
  }
  return best
}

export function toHaveCalledTool(this: MatcherState, received: unknown, name: string, params?: Record<string, unknown>): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveCalledTool')
  const calls = events.toolCallsFor(name)
  const matching = params === undefined ? calls : calls.filter((call) => matchesValue(this, call.input, params))
  const pass = matching.length > 0
  const closest = !pass && params !== undefined ? closestCall(this, calls, params) : undefined
  const withParams = params === undefined ? '' : ` with ${printExpectedLine(this, params)}`
  return report(this, {
    matcher: 'toHaveCalledTool',
    timeline: { events, focus: theseCalls(pass ? matching : calls) },
    args: params === undefined ? 'name' : 'name, params',
    pass,
    expected: `Expected ${name} to be called${withParams}.`,
    notExpected: `Expected ${name} not to be called${withParams}.`,
    happened: () => {
      if (pass) return `It was called ${matching.length} time(s) that way:\n${numbered(matching.map(describeCall(this)))}`
      if (calls.length === 0) return `${name} was never called. ${allCalls(this, events)}`
      return `${name} was called ${calls.length} time(s), never with matching params:\n${numbered(calls.map(describeCall(this)))}`
    },
    ...(closest ? { diffHeading: 'Diff against the closest call:', actual: closest.input, expectedValue: params } : {}),
  })
}

export function toHaveCalledToolTimes(this: MatcherState, received: unknown, name: string, times: number): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveCalledToolTimes')
  const calls = events.toolCallsFor(name)
  return report(this, {
    matcher: 'toHaveCalledToolTimes',
    timeline: { events, focus: callsOf(name) },
    args: 'name, times',
    pass: calls.length === times,
    expected: `Expected ${name} to be called ${times} time(s).`,
    notExpected: `Expected ${name} not to be called exactly ${times} time(s).`,
    happened: () =>
      calls.length === 0 ? `${name} was never called. ${allCalls(this, events)}` : `${name} was called ${calls.length} time(s):\n${numbered(calls.map(describeCall(this)))}`,
  })
}

export function toHaveCalledToolsInOrder(this: MatcherState, received: unknown, names: string[]): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveCalledToolsInOrder')
  const sequence = events.toolSequence()
  // A subsequence: other calls may come between the named ones.
  let next = 0
  for (const tool of sequence) if (tool === names[next]) next++
  const pass = next === names.length
  return report(this, {
    matcher: 'toHaveCalledToolsInOrder',
    timeline: { events, focus: callsOf(...names) },
    args: 'names',
    pass,
    expected: `Expected the tools to be called in the order ${names.join(' → ')} (other calls may come between).`,
    notExpected: `Expected the tools not to be called in the order ${names.join(' → ')}.`,
    happened: () =>
      `${pass ? 'They were' : `Only ${names.slice(0, next).join(' → ') || 'none of them'} matched in order; missing from there: ${names[next]}.`}\nCall sequence: ${sequence.join(' → ') || '(no calls)'}`,
  })
}

/**
 * `toHaveBlocked(name, reason?)` or `toHaveBlocked(name, params, reason?)`: a plain object is the params (matched
 * like toHaveCalledTool's), anything else the reason (a string as a substring, a RegExp, an asymmetric matcher).
 */
export function toHaveBlocked(this: MatcherState, received: unknown, name: string, ...rest: [paramsOrReason?: unknown, reason?: TextMatcher]): MatcherOutcome {
  const { events } = requireReceived(received, 'toHaveBlocked')
  const [params, reason] = isPlainObject(rest[0]) ? [rest[0], rest[1]] : [undefined, rest[0] as TextMatcher | undefined]
  const calls = events.toolCallsFor(name)
  const picked = params === undefined ? calls : calls.filter((call) => matchesValue(this, call.input, params))
  const blocked = picked.filter((call) => call.blocked)
  const matching = reason === undefined ? blocked : blocked.filter((call) => matchesText(this, call.blockReason, reason))
  const withParams = params === undefined ? '' : ` with ${printExpectedLine(this, params)}`
  const because = reason === undefined ? '' : ` with a reason matching ${printExpectedLine(this, reason)}`
  return report(this, {
    matcher: 'toHaveBlocked',
    timeline: { events, focus: theseCalls(matching.length > 0 ? matching : picked.length > 0 ? picked : calls) },
    args: ['name', ...(params === undefined ? [] : ['params']), ...(reason === undefined ? [] : ['reason'])].join(', '),
    pass: matching.length > 0,
    expected: `Expected ${name}${withParams} to be blocked${because}.`,
    notExpected: `Expected ${name}${withParams} not to be blocked${because}.`,
    happened: () => {
      if (calls.length === 0) return `${name} was never called. ${allCalls(this, events)}`
      if (matching.length > 0) return `It was blocked ${matching.length} time(s):\n${numbered(matching.map(describeCall(this)))}`
      if (picked.length === 0) return `${name} was called ${calls.length} time(s), never with matching params:\n${numbered(calls.map(describeCall(this)))}`
      if (blocked.length > 0) return `${name} was blocked, but for other reasons:\n${numbered(blocked.map((c) => printReceivedLine(this, c.blockReason)))}`
      const results = events.toolResultsFor(name)
      const outcome = (call: ToolCallRecord) => {
        const result = results.find((r) => r.toolCallId === call.toolCallId)
        const returned = result ? `${result.isError ? 'error: ' : ''}${printReceivedLine(this, result.text)}` : '(no result)'
        return `${callLine(this, call.toolName, call.input)} → ${returned}`
      }
      return `${name} was not blocked: it ran and returned\n${numbered(picked.map(outcome))}`
    },
  })
}
