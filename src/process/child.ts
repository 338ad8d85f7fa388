// The real `pi` CLI of the installed line, started in RPC mode as the leader of its own process group (the
// bounded runner's), with the network guard preloaded and the harness's extension loaded first. Its stdout
// is the protocol, its stderr is kept for failure messages, and IPC carries the harness extension's asks.
import type { Readable, Writable } from 'node:stream'
import { PI_LINE } from '../pi/index.js'
import { piAiEntryOf, piCliOf, piIndexBesideCli } from '../pi/line.js'
import { OutputTail } from '../project/output-tail.js'
import { startProcessGroup } from '../project/runner.js'
import { within } from '../shared/within.js'
import { childFile, networkGuardPreload } from './child-files.js'
import { CHILD_SETTINGS_ENV, type ChildMessage, type ChildSettings, type HarnessAnswer } from './protocol.js'
import { RpcClient, type RpcRecord } from './rpc-client.js'

export interface ChildOptions {
  cwd: string
  /** HOME, the agent dir and the rest of the session's isolation, and the test's own variables. */
  env: NodeJS.ProcessEnv
  settings: Omit<ChildSettings, 'piModules'>
  /** What follows `pi --mode rpc` and the harness's `-e`: the extensions, flags and the test's argv. */
  args: string[]
  onRecord(record: RpcRecord): void
  onStrayLine(line: string): void
  onMessage(message: ChildMessage, answer: (reply: Omit<HarnessAnswer, 'kind' | 'id'>) => void): void
  /** The child ended while the session was alive. */
  onExit(description: string): void
}

export interface PiChild {
  rpc: RpcClient
  pid: number | undefined
  /** The last lines Pi and the extensions wrote to stderr. */
  stderr(): string
  readonly exited: boolean
  /** Asks Pi to shut down (stdin closes, `session_shutdown` fires), then ends the whole group; bounded. */
  end(graceMs: number): Promise<{ stray: number[]; exitedInTime: boolean }>
}

/** Children alive in this process: a worker that exits (a timed-out run, Vitest's teardown) takes them along. */
const alive = new Set<() => void>()
let exitHookInstalled = false

export function startPiChild(options: ChildOptions): PiChild {
  const cli = piCliOf(PI_LINE)
  const args = [...networkGuardPreload(), cli, '--mode', 'rpc', '-e', childFile('process/child-extension'), ...options.args]
  const group = startProcessGroup({
    command: process.execPath,
    args,
    cwd: options.cwd,
    env: { ...options.env, [CHILD_SETTINGS_ENV]: JSON.stringify({ ...options.settings, piModules: { ai: piAiEntryOf(PI_LINE), codingAgent: piIndexBesideCli(cli) } } satisfies ChildSettings) },
    stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
  })
  const { child } = group
  const stderr = new OutputTail()
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk))
  const rpc = new RpcClient(child.stdin as Writable, child.stdout as Readable, { onRecord: options.onRecord, onStrayLine: options.onStrayLine })
  child.stdin!.on('error', () => {}) // EPIPE once the child is gone: the exit says why.
  child.on('message', (message: ChildMessage) =>
    options.onMessage(message, (reply) => {
      if (child.connected) child.send({ kind: 'answer', id: (message as { id: number }).id, ...reply } satisfies HarnessAnswer)
    }),
  )
  let ending = false
  let exited = false
  const exit = new Promise<void>((resolve) => {
    const onEnd = (code: number | null, signal: string | null, error?: Error) => {
      exited = true
      alive.delete(group.killNow)
      const description = error ? `could not start: ${error.message}` : `exited with ${signal ? `signal ${signal}` : `code ${code}`}`
      rpc.close(new Error(`The pi process ${description}.${describeStderr(stderr.text())}`))
      if (!ending) options.onExit(description)
      resolve()
    }
    child.once('exit', (code, signal) => onEnd(code, signal))
    child.once('error', (error) => onEnd(null, null, error))
  })
  alive.add(group.killNow)
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.once('exit', () => {
      for (const kill of alive) kill()
    })
  }
  return {
    rpc,
    pid: child.pid,
    stderr: () => stderr.text(),
    get exited() {
      return exited
    },
    async end(graceMs) {
      ending = true
      child.stdin!.end()
      const exitedInTime = exited || (await within(exit, graceMs)) !== undefined
      const stray = await group.end()
      await exit
      return { stray, exitedInTime }
    },
  }
}

/** The tail of stderr as the end of a failure message; nothing when it is empty. */
export function describeStderr(text: string): string {
  const trimmed = text.trim()
  if (trimmed === '') return ''
  const lines = trimmed.split('\n')
  const shown = lines.length > 30 ? ['…', ...lines.slice(-30)] : lines
  return `\nThe pi process's stderr:\n${shown.map((line) => `  ${line}`).join('\n')}`
}
