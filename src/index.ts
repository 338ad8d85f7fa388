// The harness, independent of Vitest.
export { createTestSession, type TestSession, type TestSessionOptions } from './session.js'
export { calls, says, thinks, parallel, fails, when, type Action, type Turn, type ToolCallAction, type ToolParams } from './playbook.js'
export { TIMEOUT, type MockUIOptions, type DialogScript } from './mock-ui.js'
export type { MockToolHandler, MockToolResult } from './mock-tools.js'
export { setModuleLoader, type ModuleLoader } from './module-loader.js'
export type {
  ExecCallRecord,
  ExtensionErrorRecord,
  ModelRequestRecord,
  SessionRecords,
  ToolCallRecord,
  ToolResultRecord,
  UICallRecord,
} from './records.js'
export { createMockPi, type MockPi, type MockPiCall, type MockPiResponse } from './mock-pi.js'
export {
  verifySandboxInstall,
  SandboxError,
  SANDBOX_STEPS,
  type SandboxOptions,
  type SandboxResult,
  type SandboxExpect,
  type SandboxSmoke,
  type SandboxLoaded,
  type SandboxStep,
  type SandboxStepEvent,
} from './sandbox.js'
export { runProjectScript, type ProjectScript, type ProjectScriptResult, type ProjectScriptOptions } from './runner.js'
export type { HttpCallRecord } from './mock-http.js'
export type { PendingRule } from './mock-rules.js'
export type { MockBlocks, FiredEvent } from './mock-world.js'
