// Who made a model call, from the call stack at the moment it was made: the first frame in one of the
// session's extension files (an `index` file's folder counts as its own, for the helpers beside it).
import { basename, dirname } from 'node:path'
import { PI_COMPACTION_CHUNK } from './bundle.js'

/** Where a caller's stack rides along a model call's options, past Pi's own awaits (1.x's model runtime). */
export const CALLER_STACK = Symbol.for('vitest-environment-pi:caller-stack')

/** The stack of the code running now, deep enough to reach past Pi's and pi-ai's own frames. */
export function callerStack(): string {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 50
  try {
    return new Error().stack ?? ''
  } finally {
    Error.stackTraceLimit = limit
  }
}

/**
 * The extension among `paths` whose code is on `stack`, nearest the call first; with one extension
 * loaded, that one (an inline factory has no file of its own on the stack); else undefined.
 */
export function extensionOnStack(stack: string | undefined, paths: readonly string[]): string | undefined {
  const files = paths.filter((path) => !path.startsWith('<'))
  const owns = (frame: string, path: string) =>
    frame.includes(path) || (/^index\.[cm]?[jt]sx?$/.test(basename(path)) && frame.includes(`${dirname(path)}/`))
  for (const frame of (stack ?? '').split('\n').slice(1)) {
    const found = files.find((path) => owns(frame, path))
    if (found !== undefined) return found
  }
  return paths.length === 1 ? paths[0] : undefined
}

/**
 * Whether Pi itself made the call: its compaction and branch summary ask the model through pi-ai on 0.73,
 * where 1.x hands them the agent's stream function. No extension of `paths` is on the stack.
 */
// Pi's compaction code: its own files, or the run's bundle's chunk of them.
const PI_COMPACTION = new RegExp(`pi-coding-agent/dist/core/compaction/|/chunks/${PI_COMPACTION_CHUNK}-[^/]+\\.mjs`)

export function askedByPi(stack: string | undefined, paths: readonly string[]): boolean {
  const frames = (stack ?? '').split('\n').slice(1)
  const files = paths.filter((path) => !path.startsWith('<'))
  return frames.some((frame) => PI_COMPACTION.test(frame)) && !frames.some((frame) => files.some((path) => frame.includes(path)))
}
