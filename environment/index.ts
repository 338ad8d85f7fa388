// vitest-environment-pi: the Environment (default export), the harness and the matchers' types.
import type { PiEnvironmentOptions } from './defaults.js'
import { environment } from './environment.js'

export default environment
export { createTestSession } from './sessions.js'
export { createMockPi } from './mock-pi.js'
export { test, type PiFixtures } from './fixture.js'
export type { PiEnvironmentOptions } from './defaults.js'
export type { AttachMode, SessionAttachOptions } from './attach-options.js'
export { SESSION_ANNOTATION } from './attach.js'
export type { PiSandboxConfig, PiGlobalSetupOptions, ProvidedScripts, ProvidedSandbox } from './provided.js'
export { piSerializer } from './serializer.js'
export { auditGuard } from './audit.js'
export type { PiMatchers, AuditExpectation, ExpectedToolResult, RenderedOptions, TextMatcher, DialogMethod, ExpectedDialog, NotifyLevel } from '../matchers/index.js'
export {
  calls,
  says,
  thinks,
  parallel,
  responds,
  fails,
  aborts,
  waitsFor,
  forExtension,
  when,
  replay,
  TIMEOUT,
  type Action,
  type Turn,
  type Cassette,
  type ToolCallAction,
  type ToolParams,
  type TestSession,
  type TestSessionOptions,
  type MockUIOptions,
  type DialogScript,
  type CustomKeys,
  type KeyInput,
  type MockToolHandler,
  type MockToolResult,
  type MockPi,
  type MockPiOptions,
  type MockPiCall,
  type MockPiResponder,
  type MockPiResponse,
  type ToolCallRecord,
  type ToolResultRecord,
  type UICallRecord,
  type CustomFrame,
  type WidgetRecord,
  type AppendedEntryRecord,
  type ModelRequestRecord,
  type RenderRecord,
  type ExtensionErrorRecord,
  type SessionRecords,
  type HttpCallRecord,
  type PendingRule,
  type MockBlocks,
  type FiredEvent,
  verifySandboxInstall,
  SandboxError,
  type SandboxOptions,
  type SandboxResult,
  runProjectScript,
  type ProjectScript,
  type ProjectScriptResult,
  defaultCorpus,
  extendCorpus,
  loadCorpusFile,
  CorpusError,
  type AuditGuardOptions,
  type AuditCorpus,
  type AuditCategory,
  type AuditCall,
  type DangerousEntry,
  type BenignEntry,
  type CorpusAdditions,
  type AuditResult,
  type AuditedEntry,
  type AuditOutcome,
  type AuditDialog,
  type AuditCategorySummary,
} from '../src/index.js'

declare module 'vitest' {
  interface ProvidedContext {
    /** The config's environmentOptions.pi, provided by the pi() plugin. */
    'pi:defaults': PiEnvironmentOptions
  }
}
