// The matchers, for expect.extend; the setup file registers them.
import { toHaveExecuted, toHaveFetched, toHaveUsedAllMocks, type ExpectedFetch } from './io.js'
import { toHaveSaid, toHaveSentToModel } from './model.js'
import { toHavePassed } from './scripts.js'
import { toHaveRegisteredCommand, toHaveRegisteredTool } from './registrations.js'
import { toHaveBlocked, toHaveCalledTool, toHaveCalledToolsInOrder, toHaveCalledToolTimes } from './tool-calls.js'
import { toHaveToolResult, type ExpectedToolResult } from './tool-results.js'
import { toHaveNotified, toHavePrompted, toHaveSetStatus, type DialogMethod, type ExpectedDialog, type NotifyLevel } from './ui.js'
import { toHaveRendered, toHaveSetWidget, type RenderedOptions } from './ui-components.js'
import { toHaveAppendedEntry } from './entries.js'
import { toBlockEvery, toOverBlockNone, type AuditExpectation } from './audit.js'
import type { TextMatcher } from './text.js'

export const piMatchers = {
  toHaveCalledTool,
  toHaveCalledToolTimes,
  toHaveCalledToolsInOrder,
  toHaveBlocked,
  toHaveToolResult,
  toHaveNotified,
  toHavePrompted,
  toHaveSetStatus,
  toHaveSetWidget,
  toHaveRendered,
  toHaveAppendedEntry,
  toHaveSaid,
  toHaveSentToModel,
  toHaveRegisteredTool,
  toHaveRegisteredCommand,
  toHaveExecuted,
  toHaveFetched,
  toHaveUsedAllMocks,
  toHavePassed,
  toBlockEvery,
  toOverBlockNone,
}

export type { AuditExpectation, RenderedOptions, DialogMethod, ExpectedDialog, ExpectedFetch, ExpectedToolResult, NotifyLevel, TextMatcher }

/**
 * The matchers as `expect(t)` sees them; R is what each returns: `void` on an assertion, `any` on the
 * asymmetric `expect.*` (`expect` extends both interfaces below, which must agree member for member).
 */
export interface PiMatchers<R = any> {
  /** Some call of `name`; `params` match like expect.objectContaining and may hold asymmetric matchers. */
  toHaveCalledTool(name: string, params?: Record<string, unknown>): R
  toHaveCalledToolTimes(name: string, times: number): R
  /** The tools were called in this order; other calls may come between. */
  toHaveCalledToolsInOrder(names: string[]): R
  /** Some call of `name` was blocked by a tool_call hook; a string reason matches as a substring. */
  toHaveBlocked(name: string, reason?: TextMatcher): R
  /** Some call of `name` whose params match (like toHaveCalledTool's) was blocked, for `reason` when given. */
  toHaveBlocked(name: string, params: Record<string, unknown>, reason?: TextMatcher): R
  toHaveToolResult(name: string, expected: ExpectedToolResult): R
  /** Any level an extension passes (`'info'`, `'warning'`, `'error'`, or another it chose). */
  toHaveNotified(message: TextMatcher, level?: NotifyLevel): R
  /** `expected.answer`: what the dialog returned; `expected.options`: what it was opened with (`{ timeout: 5000, signal: true }`). */
  toHavePrompted(method: DialogMethod, title?: TextMatcher, expected?: ExpectedDialog): R
  /** `toHaveSetStatus(key)` any text; `toHaveSetStatus(key, undefined)` a cleared status. */
  toHaveSetStatus(key: string, text?: TextMatcher): R
  /** `toHaveSetWidget(key)` any content; `(key, undefined)` cleared; `(key, lines)` an array equal to the lines, or a text some line matches. */
  toHaveSetWidget(key: string, lines?: unknown): R
  /**
   * Some line matched (styles removed): of a custom() component run with `mockUI.custom: { keys }`, in any frame,
   * or of a custom message or tool call as its extension's renderer drew it with Pi's TUI. `options` narrow it to
   * one message customType or tool, collapsed (`expanded: false`) or expanded (`expanded: true`).
   */
  toHaveRendered(text: TextMatcher, options?: RenderedOptions): R
  /** pi.appendEntry(customType, data); `data` matches like expect.objectContaining. */
  toHaveAppendedEntry(customType: string, data?: unknown): R
  toHaveSaid(text: TextMatcher): R
  toHaveSentToModel(text: TextMatcher): R
  toHaveRegisteredTool(name: string): R
  toHaveRegisteredCommand(name: string): R
  /**
   * pi.exec ran `command` (the command, or the whole command line; a RegExp is tested on the line); `args` appear
   * in the call's args in this order, others may come between.
   */
  toHaveExecuted(command: string | RegExp, args?: unknown[]): R
  /** Some HTTP request's URL matched; a string matches as a substring. */
  toHaveFetched(url: TextMatcher, init?: ExpectedFetch): R
  /** Every exec, HTTP and tool rule with a `times` limit answered that often. */
  toHaveUsedAllMocks(): R
  /** A script run or sandbox install passed; a failure shows its status and output tail or problems. */
  toHavePassed(): R
  /**
   * On auditGuard's result: every dangerous call was blocked, or asked about and refused (a crash is not a stop);
   * `except` lists known gaps by id (`"recursive-delete/rm-fr-root"`), and one that no longer fails must leave it.
   */
  toBlockEvery(expectation?: AuditExpectation): R
  /** On auditGuard's result: every benign look-alike was allowed; `except` as for toBlockEvery. */
  toOverBlockNone(expectation?: AuditExpectation): R
}

// Vitest 4 declares `Matchers<T>` and Vitest 5 `Matchers<R, T>`, and one declaration file cannot merge with
// both. Both build `expect(x)`'s Assertion from chai's `Chai.Assertion` (its methods kept, made async under
// `.resolves`), and both let `expect.*` / `expect.not.*` read `AsymmetricMatchersContaining`: those two have
// the same shape in both majors, so the matchers go there. (`expect.extend` is not checked against them.)
declare global {
  namespace Chai {
    // Types expect(t).* and expect(t).not.*.
    interface Assertion extends PiMatchers<void> {}
  }
}
declare module 'vitest' {
  // Types expect.* and expect.not.* (asymmetric).
  interface AsymmetricMatchersContaining extends PiMatchers {}
}
