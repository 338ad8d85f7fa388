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
