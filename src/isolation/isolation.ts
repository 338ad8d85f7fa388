// Keeps Pi and the extension under test away from the real home and the network: a temp HOME and
// agent dir (the file's, and each session's over it), offline, and no connection beyond loopback.
import { statSync } from 'node:fs'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { loadHttpInterception, loadsOnFirstConnection } from '../mocks/http-interceptor.js'
import { interceptAllHttp } from '../mocks/http-routing.js'
import { builtinExportsChanged, syncBuiltinExports } from '../shared/builtin-exports.js'
import { setEnv } from '../shared/env.js'
import { globalSlot } from '../shared/global-slot.js'
import { aliveSessions, currentSession, markAlive, type SessionScope } from '../shared/session-context.js'
import { guardLateTimers } from './late-timers.js'
import { guardNetwork } from './network-guard.js'
import { releaseTempDir, takeTempDirSync } from './temp-dirs.js'

export interface Isolation {
  home: string
  agentDir: string
}

interface ActiveIsolation {
  isolation: Isolation
  users: number
  /** Entered ahead of its file (enterIsolationAhead): the first user takes that place instead of adding one. */
  ahead?: true
  restore: () => void
}

const active = globalSlot<ActiveIsolation>('isolation')

/**
 * Enters the isolated home, creating it for the first user; nested users (a test file and its
 * sessions) share it. The returned function leaves it; the last user restores the environment.
 * Waits only where Node cannot load the HTTP interception at the first connection: it loads here, once.
 */
export async function enterIsolation(): Promise<{ isolation: Isolation; leave: () => void }> {
  if (!loadsOnFirstConnection) await loadHttpInterception()
  const entry = active.get() ?? openIsolation()
  if (entry.ahead) delete entry.ahead
  else entry.users++
  let left = false
  return {
    isolation: entry.isolation,
    leave: () => {
      if (left) return
      left = true
      if (--entry.users === 0) {
        active.clear()
        entry.restore()
      }
    },
  }
}

/**
 * Enters the isolation of a process that will run one test file, before the file is known (a worker started
 * ahead): what is imported next sees the temp home and the guarded network, as it would under the file's
 * environment. The first enterIsolation() takes this entry's place, so that its leave is the last. Nothing
 * happens where the isolation is already entered.
 */
export async function enterIsolationAhead(): Promise<void> {
  if (!loadsOnFirstConnection) await loadHttpInterception()
  if (active.get() !== undefined) return
  const entry = openIsolation()
  entry.users = 1
  entry.ahead = true
}

const FILE_HOME_PREFIX = 'file-home-'

/** Takes a temp home, points the environment at it and cuts the network; `restore` undoes all of it. */
function openIsolation(): ActiveIsolation {
  const home = takeTempDirSync(FILE_HOME_PREFIX)
  // Not created: Pi creates what it writes there.
  const agentDir = join(home, '.pi', 'agent')
  const restoreEnv = setEnv({
    ...homeVariables(home, agentDir),
    PI_OFFLINE: '1',
    PI_TELEMETRY: '0',
    JITI_FS_CACHE: 'false',
  })
  replaceCwd()
  const restoreHomedir = replaceHomedir(home)
  const releaseNetwork = guardNetwork()
  // os.homedir and the guard's patches reach ESM importers in one sync (the guard's, else this one).
  syncBuiltinExports()
  // Installed here, not per session: sessions route through it.
  const releaseHttp = interceptAllHttp()
  guardLateTimers()
  const entry: ActiveIsolation = {
    isolation: { home, agentDir },
    users: 0,
    restore: () => {
      releaseHttp()
      releaseNetwork()
      restoreHomedir()
      restoreEnv()
      releaseTempDir(home)
    },
  }
  active.set(entry)
  return entry
}

/** The variables that say where home is: the file's, then each session's over it. */
export function homeVariables(home: string, agentDir: string): Record<string, string> {
  return {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    PI_CODING_AGENT_DIR: agentDir,
  }
}

interface SessionHome {
  scope: SessionScope
  /** Puts back the variables as they were before this session's home was entered. */
  restoreEnv: () => void
}

// The sessions whose home is entered, oldest first: process.env holds the newest one's.
const sessionHomes = globalSlot('session-homes', () => [] as SessionHome[])

/**
 * Makes `scope`'s home the session's: os.homedir() and os.userInfo().homedir in its context, and, while it
 * is the newest session alive, HOME and the other home variables of process.env (which hold one value).
 * Sessions may leave in any order; the variables always end as the newest remaining session's, or as
 * they were before the first.
 */
export function enterSessionHome(scope: SessionScope, agentDir: string): () => void {
  const unmark = markAlive(scope)
  const entry: SessionHome = { scope, restoreEnv: setEnv(homeVariables(scope.home, agentDir)) }
  const entries = sessionHomes.get()
  entries.push(entry)
  return () => {
    unmark()
    const at = entries.indexOf(entry)
    if (at < 0) return
    entries.splice(at, 1)
    // Not the newest: what it replaced becomes what the next newer session puts back.
    if (at < entries.length) entries[at]!.restoreEnv = entry.restoreEnv
    else entry.restoreEnv()
  }
}

// In worker threads os.homedir() reads the process's real environment, not the thread's copy of
// process.env. It is replaced once, by a function that reads the temp home of the running session, else
// of the newest session alive, else of the file: a VM pool may keep a copy of the builtin's exports across
// files, so the function itself must never change (what it reads lives on `process`).
const HOME = Symbol.for('vitest-environment-pi:home')
type HomeHolder = { [HOME]?: string }
type Isolated = typeof os.homedir & { isolated?: true }

function replaceHomedir(home: string): () => void {
  if (!(os.homedir as Isolated).isolated) {
    const original = os.homedir
    os.homedir = Object.assign(() => isolatedHome() ?? original(), { isolated: true as const })
    // os.userInfo().homedir reads the password database: the real home, unless it is replaced too.
    const userInfo = os.userInfo
    os.userInfo = ((options?: { encoding: BufferEncoding }) => {
      const info = userInfo(options)
      const temp = isolatedHome()
      return temp === undefined ? info : { ...info, homedir: temp }
    }) as typeof os.userInfo
    builtinExportsChanged()
  }
  const holder = process as HomeHolder
  const previous = holder[HOME]
  holder[HOME] = home
  return () => {
    holder[HOME] = previous
  }
}

function isolatedHome(): string | undefined {
  return currentSession()?.home ?? aliveSessions().at(-1)?.home ?? (process as HomeHolder)[HOME]
}

// process.cwd() is the session's cwd in its context, as os.homedir() is its home: in Pi they are the same
// directory, and extensions name things after either. Outside a session (the test, Vitest) it is the real
// one. process.chdir() in a session's context moves that session's cwd alone: the process's own cwd, shared
// by every test of the worker, never changes under another test, nor stays in a dir removed with a session.
// Replaced once per process, by functions that read the running session (what they read lives on `process`).
// Relative paths handed to fs still resolve against the real cwd: resolve them first (path.resolve reads
// process.cwd()).
type Scoped<T> = T & { sessionScoped?: true }

function replaceCwd(): void {
  if ((process.cwd as Scoped<typeof process.cwd>).sessionScoped) return
  const realCwd = process.cwd.bind(process)
  const realChdir = process.chdir.bind(process)
  process.cwd = Object.assign(() => currentSession()?.cwd ?? realCwd(), { sessionScoped: true as const })
  process.chdir = (directory: string) => {
    const session = currentSession()
    if (session === undefined) return realChdir(directory)
    const target = resolve(session.cwd, String(directory))
    // As Node's own chdir fails: ENOENT for a missing dir, ENOTDIR for a file.
    if (!statSync(target).isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, chdir ${session.cwd} -> '${directory}'`), { code: 'ENOTDIR', syscall: 'chdir', path: target })
    session.cwd = target
  }
  // `import { cwd } from 'node:process'` too.
  builtinExportsChanged()
}
