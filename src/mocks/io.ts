// The session's exec and HTTP edges: pi.exec answered by exec rules, every fetch by HTTP rules.
import { answerHttp } from './http-routing.js'
import { createExecMock, type ExecMockHandle } from './exec.js'
import { createHttpMock } from './http.js'
import type { PendingRule, UnhandledMode } from './rules.js'
import type { MockBlocks } from './world.js'
import type { ExtensionAPI } from '../pi/index.js'
import type { SessionRecords } from '../records/records.js'

export interface IoMocks {
  /** `pi.exec` as the exec rules answer it; `api.exec` runs the command when `unhandled` is 'bypass'. */
  execFor(api: ExtensionAPI): ExtensionAPI['exec']
  pending(): PendingRule[]
  /** Stops intercepting HTTP. */
  release(): void
}

export interface IoMockOptions {
  unhandled: UnhandledMode
  records: SessionRecords
  /** An unhandled call: it fails the current test. */
  onProblem(error: Error): void
}

const warn = (message: string) => console.warn(`[vitest-environment-pi] ${message}`)

/**
 * HTTP is intercepted process-wide (fetch has one global dispatcher): with sessions alive at once, the
 * newest one's rules answer.
 */
export function createIoMocks(blocks: MockBlocks, options: IoMockOptions): IoMocks {
  let realExec: ExtensionAPI['exec'] | undefined
  const exec: ExecMockHandle = createExecMock(blocks.exec ?? {}, {
    unhandled: options.unhandled,
    realExec: (command, args, execOptions) => realExec!(command, args, execOptions),
    onUnhandled: options.onProblem,
    record: (call) => void options.records.exec.push(call),
    warn,
  })
  const http = createHttpMock(blocks.http ?? {}, {
    unhandled: options.unhandled,
    onUnhandled: options.onProblem,
    record: (call) => void options.records.http.push(call),
    warn,
  })
  const release = answerHttp((request) => http.handle(request))
  return {
    execFor(api) {
      realExec ??= api.exec
      return (command, args, execOptions) => exec.exec(command, args, execOptions)
    },
    pending: () => [...exec.pending(), ...http.pending()],
    release,
  }
}
