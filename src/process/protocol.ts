// What the harness and its extension inside a `pi --mode rpc` child say to each other over Node's IPC
// channel (the child's stdin and stdout belong to Pi's RPC protocol). Types and names only: both sides
// import this file, and the child must not load the harness.

/** The variable that hands the child's harness extension its settings (JSON of ChildSettings). */
export const CHILD_SETTINGS_ENV = 'VITEST_PI_PROCESS_SETTINGS'

/**
 * The status key the harness extension sets when Pi starts a new instance of the session (/new, /resume,
 * /fork): it comes over RPC among the instance's own records, in order, so the harness knows where each
 * instance's records begin. The harness takes it as that signal, never as a recorded status.
 */
export const INSTANCE_STATUS_KEY = 'vitest-environment-pi:instance'

export interface ChildSettings {
  /** The model the session reports, registered as its provider's only model. */
  model: { id: string; name: string; api: string; provider: string; reasoning: boolean; input: string[]; contextWindow: number; maxTokens: number }
  /** Tools whose `execute` the harness answers (its mocks). */
  mockedTools: string[]
  /**
   * Files of the running line's modules the extension imports by path: a name would resolve from the harness's
   * own location, where another line may be installed (its whole coding agent then loads beside Pi's).
   */
  piModules: { ai: string; codingAgent: string }
}

/** From the child: a request the harness answers with an `answer` of the same id. */
export type ChildRequest =
  | { kind: 'model'; id: number; context: unknown }
  | { kind: 'tool'; id: number; toolName: string; toolCallId: string; params: unknown }
  /** A `tool_call` reached the harness's handler (the first): the call was valid and its hooks ran. */
  | { kind: 'tool-called'; id: number; toolCallId: string }
  /** A `tool_result` reached the handler: the tool ran, so the call was not blocked. */
  | { kind: 'tool-ran'; id: number; toolCallId: string }

/** From the child, without an answer. */
export type ChildNotice = { kind: 'abort-model'; id: number } | { kind: 'network-refused'; target: string }

export type ChildMessage = ChildRequest | ChildNotice

/** A message the harness takes without answering. */
export function isNotice(message: ChildMessage): message is ChildNotice {
  return message.kind === 'abort-model' || message.kind === 'network-refused'
}

/** To the child: the answer to request `id`, a value or an error message. */
export type HarnessAnswer = { kind: 'answer'; id: number; value?: unknown; error?: string }
