// The harness, independent of Vitest.
export { createTestSession, type TestSession, type TestSessionOptions } from './test-session.js'
export { calls, says, thinks, parallel, responds, fails, aborts, waitsFor, forExtension, when, type Action, type Turn, type ToolCallAction, type ToolParams } from './model/script.js'
export { TIMEOUT, type MockUIOptions, type DialogScript } from './mocks/ui.js'
export type { CustomKeys, KeyInput } from './mocks/keys.js'
export type { MockToolHandler, MockToolResult } from './mocks/tools.js'
export { replay, type Cassette } from './mocks/replay.js'
export { setModuleLoader, type ModuleLoader } from './session/module-loader.js'
export { settleTempDirs } from './isolation/temp-dirs.js'
export type {
  AppendedEntryRecord,
  CustomFrame,
  ExecCallRecord,
  ExtensionErrorRecord,
  HttpCallRecord,
  ModelRequestRecord,
  RenderRecord,
  SessionRecords,
  ToolCallRecord,
  ToolResultRecord,
  UICallRecord,
  WidgetRecord,
} from './records/records.js'
export { createMockPi, type MockPi, type MockPiCall, type MockPiOptions, type MockPiResponder, type MockPiResponse } from './project/mock-pi.js'
export { runProjectScript } from './project/on-demand.js'
export { verifySandboxInstall } from './sandbox-install.js'
export { SandboxError, SANDBOX_STEPS, type SandboxStep } from './project/sandbox-steps.js'
export type { SandboxOptions, SandboxResult, SandboxExpect, SandboxSmoke, SandboxLoaded, SandboxStepEvent } from './project/sandbox.js'
export type { ProjectScript, ProjectScriptResult, ProjectScriptOptions } from './project/runner.js'
export type { PendingRule } from './mocks/rules.js'
export type { MockBlocks } from './mocks/spec/resolve.js'
export type { FiredEvent } from './mocks/events.js'
export { auditGuard, type AuditGuardOptions } from './audit/audit.js'
export { defaultCorpus, extendCorpus, loadCorpusFile, CorpusError, type AuditCorpus, type AuditCategory, type AuditCall, type DangerousEntry, type BenignEntry, type CorpusAdditions } from './audit/corpus.js'
export type { AuditResult, AuditedEntry, AuditOutcome, AuditDialog, AuditCategorySummary } from './audit/result.js'
