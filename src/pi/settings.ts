// A session's settings as Pi keeps them: Pi's own SettingsManager over the global file
// (`<agentDir>/settings.json`) and the project's (`<cwd>/.pi/settings.json`), merged as Pi merges them,
// saved where Pi saves them; with the harness's own defaults beneath the global file.
import { existsSync, readFileSync } from 'node:fs'
import type { SettingsManager } from '@mariozechner/pi-coding-agent'
import { PiSettings } from './running-line.js'

/**
 * Where the harness differs from Pi's defaults: a test's model is a script, so compaction (which would ask
 * it for a summary) and retries (which would replay a failure the script meant) are off. A setting in the
 * global or project file wins over these; they are never written to a file.
 */
export const HARNESS_SETTINGS = { compaction: { enabled: false }, retry: { enabled: false } } as const

type SettingsScope = 'global' | 'project'
/** Pi's storage of settings (SettingsStorage, not exported by 0.73): a read returns undefined from `fn`, a write the new text. */
interface SettingsStorage {
  withLock(scope: SettingsScope, fn: (current: string | undefined) => string | undefined): void
  /** The files FileSettingsStorage locks (fields of the class on both lines). */
  readonly globalSettingsPath?: string
  readonly projectSettingsPath?: string
}
type StorageClass = new (cwd: string, agentDir: string) => SettingsStorage

// Pi's FileSettingsStorage (file locks included), which Pi's index does not export: the class of the storage
// SettingsManager.create builds, taken from the first such manager.
let FileStorage: StorageClass | undefined

function piFileStorage(cwd: string, agentDir: string): SettingsStorage {
  if (FileStorage !== undefined) return new FileStorage(cwd, agentDir)
  const storage = (PiSettings.create(cwd, agentDir) as unknown as { storage?: SettingsStorage }).storage
  if (typeof storage?.withLock !== 'function') throw new Error("This Pi's SettingsManager keeps no file storage where the harness looks for it (SettingsManager.create(...).storage)")
  FileStorage = storage.constructor as StorageClass
  return storage
}

/** Pi's settings manager over the session's files, with HARNESS_SETTINGS beneath the global one. */
export function sessionSettings(cwd: string, agentDir: string): SettingsManager {
  return PiSettings.fromStorage(underHarnessSettings(piFileStorage(cwd, agentDir)))
}

/**
 * Reads of the global file see HARNESS_SETTINGS beneath what the file says; writes go to the file as Pi
 * makes them from the file's own text, so the defaults never land on disk. Pi tells a read from a write by
 * what `fn` returns: it is asked with the file's text first, and again with the layered text if it only read.
 *
 * A read takes no lock: Pi locks a settings file that exists for every read too (proper-lockfile: a lock dir
 * made and removed), and removing a dir is slow where a disk discards freed blocks (2.7 ms of wall time for an
 * rmdir on this project's test machine), four times a session with both files seeded. Nothing else writes a
 * session's files during its synchronous read. A write is Pi's own, under its lock, from the text read there.
 */
function underHarnessSettings(files: SettingsStorage): SettingsStorage {
  const pathOf = (scope: SettingsScope) => (scope === 'global' ? files.globalSettingsPath : files.projectSettingsPath)
  const locked = (scope: SettingsScope, fn: (current: string | undefined) => string | undefined) =>
    files.withLock(scope, (current) => {
      const written = fn(current)
      if (written !== undefined || scope !== 'global') return written
      return fn(layered(current))
    })
  return {
    withLock: (scope, fn) => {
      const path = pathOf(scope)
      if (path === undefined) return locked(scope, fn)
      const current = readIfThere(path)
      if (fn(current) !== undefined) return locked(scope, fn)
      if (scope === 'global') fn(layered(current))
    },
  }
}

function readIfThere(path: string): string | undefined {
  // No file is the common case (nothing seeded), read four times a session: a failed read builds an error
  // with its stack each time, about ten times what the check costs.
  if (!existsSync(path)) return undefined
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

function layered(text: string | undefined): string | undefined {
  let file: unknown = {}
  try {
    if (text !== undefined) file = JSON.parse(text)
  } catch {
    // Pi reports the file it cannot parse: it gets the text as it is.
    return text
  }
  if (typeof file !== 'object' || file === null || Array.isArray(file)) return text
  const merged: Record<string, unknown> = { ...HARNESS_SETTINGS }
  for (const [key, value] of Object.entries(file)) {
    const under = merged[key]
    merged[key] = isRecord(under) && isRecord(value) ? { ...under, ...value } : value
  }
  return JSON.stringify(merged)
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
