// The guard's patches on child processes: every process started while a guard is held (spawn, exec,
// execFile, fork and their sync forms, a shell's commands included) is started guarded or not at all:
// - NODE_OPTIONS preloads the guard, so any Node it runs (`node -e`, a script, npm) refuses as this one does;
// - its proxy variables name a loopback proxy that refuses every request (curl, wget, git, pip…), and the
//   request is reported, naming the program, the host and the child;
// - a program that reaches the network without a proxy (ssh, nc, ping, dig…) is refused at the spawn, and
//   run by name from a shell or a script it finds a stand-in first on PATH that refuses it and reports it;
// - a program told on its command line to go around the guard (`curl --noproxy '*'`, `python3 -I`, a
//   script's `#!/usr/bin/perl -T`) is refused at the spawn, wherever the command line starts it;
// - PYTHONPATH and PERL5OPT load Python's and Perl's own guards, which refuse the sockets the interpreter
//   opens itself and report them.
import { ChildProcess } from 'node:child_process'
import { delimiter, join } from 'node:path'
import { globalSlot } from '../shared/global-slot.js'
import { currentSession, type SessionScope } from '../shared/session-context.js'
import { refusedProgram, refusedProgramsDir } from './network-programs.js'
import { guardBypass } from './network-guard-bypass.js'
import { startedPrograms } from './started-programs.js'
import { PERL_GUARD_DIR, withPerlGuard } from './network-perl.js'
import { PYTHON_GUARD_DIR } from './network-python.js'
import { guards, refuse, type Method, type Site } from './network-policy.js'
import { refusingProxy, type ProxyRequest } from './refusing-proxy.js'

interface SpawnOptions {
  file?: string
  args?: string[]
  cwd?: string
  envPairs?: string[]
}

/** A child started guarded: whose it is, for reports of what it asked the proxy. */
interface Child {
  /** `curl -sS https://example.com`, `/bin/sh -c "curl …"`. */
  command: string
  scope: SessionScope | undefined
  /** Where it was started, to name the extension. */
  stack: string | undefined
}

const children = globalSlot('guarded-children', () => ({ next: 1, byToken: new Map<string, Child>() }))
// Enough to name every child of a busy file; the oldest are forgotten first.
const REMEMBERED_CHILDREN = 10_000
const LOOPBACK = 'localhost,127.0.0.1,::1'
const OUR_PROXY = /^http:\/\/pi-child-\d+:refused@127\.0\.0\.1:\d+$/
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'ftp_proxy', 'FTP_PROXY', 'all_proxy', 'ALL_PROXY']

/** `preload`: the `--import=…` flag that loads the guard, or undefined where a child cannot load it. */
export function childProcessSites(preload: string | undefined): Site[] {
  // Both forms end in one call with Node's normalised options, whose `envPairs` is the child's environment.
  // process.binding is deprecated only in documentation; spawnSync, execSync and execFileSync reach no public function.
  const spawnSync = (process as unknown as { binding(name: string): object }).binding('spawn_sync')
  return [ChildProcess.prototype, spawnSync].map((owner) => ({ owner, key: 'spawn', wrap: (next: Method) => guardSpawn(next, preload) }))
}

function guardSpawn(next: Method, preload: string | undefined): Method {
  return function spawn(this: unknown, options: unknown, ...rest: unknown[]) {
    const spawning = (options ?? {}) as SpawnOptions
    if (guards.size > 0 && Array.isArray(spawning.envPairs)) {
      const scope = currentSession()
      const allowed = scope?.allowedPrograms ?? []
      const file = spawning.file ?? ''
      const args = spawning.args ?? [file]
      const child: Child = { command: commandLine(args), scope, stack: new Error().stack }
      // The command line read once, for both refusals.
      const started = startedPrograms(file, args)
      const refused = refusedProgram(started, allowed)
      if (refused !== undefined) throw report(child, `${refused}, which reaches the network without a proxy, in the child process \`${child.command}\`; it was not started`)
      const around = guardBypass(started, spawning.cwd)
      if (around !== undefined) throw report(child, `${around.words}, which ${around.why}, in the child process \`${child.command}\`; it was not started`)
      // A guarded child's own children keep its proxy, also when given an environment of their own: the test's
      // process runs that proxy and knows whose child it was (a proxy of the child's would refuse unheard).
      const given = spawning.envPairs.find((pair) => pair.startsWith('http_proxy='))?.slice('http_proxy='.length)
      const inherited = [given, process.env.http_proxy].find((url) => url !== undefined && OUR_PROXY.test(url))
      const proxy = inherited === undefined ? refusingProxy(proxyAsked) : undefined
      const url = inherited ?? `http://${remember(child)}:refused@127.0.0.1:${proxy!.port}`
      spawning.envPairs = guardedEnvironment(spawning.envPairs, preload, url, allowed)
      // What the child asked the proxy is reported before its exit is seen, or before spawnSync returns.
      if (proxy !== undefined && this instanceof ChildProcess) this.once('exit', proxy.drain)
      else if (proxy !== undefined) return afterwards(next.call(this, options, ...rest), proxy.drain)
    }
    return next.call(this, options, ...rest)
  }
}

function afterwards<T>(result: T, then: () => void): T {
  then()
  return result
}

/** The child's environment with the guard's variables; `proxy`'s user name names the child. */
export function guardedEnvironment(envPairs: string[], preload: string | undefined, proxy: string, allowed: readonly string[]): string[] {
  const valueOf = (name: string) => envPairs.find((pair) => pair.startsWith(`${name}=`))?.slice(name.length + 1)
  let standIns: string | undefined | null = null
  const standInsDir = () => (standIns ??= inheritedStandIns(valueOf('PATH')) ?? inheritedStandIns(process.env.PATH) ?? refusedProgramsDir(allowed))
  const replaced = new Map<string, (value: string | undefined) => string | undefined>([
    ...PROXY_VARIABLES.map((name) => [name, () => proxy] as const),
    ['no_proxy', () => LOOPBACK],
    ['NO_PROXY', () => LOOPBACK],
    ['NODE_OPTIONS', (value) => (preload === undefined ? value : value === undefined ? preload : value.includes(preload) ? value : `${value} ${preload}`)],
    ['PATH', (value) => withStandIns(value, standInsDir)],
    ['PYTHONPATH', (value) => withGuardDir(value, standInsDir, PYTHON_GUARD_DIR)],
    ['PERL5LIB', (value) => withGuardDir(value, standInsDir, PERL_GUARD_DIR)],
    ['PERL5OPT', (value) => withPerlGuard(value, standInsDir)],
  ])
  const kept = envPairs.filter((pair) => !replaced.has(pair.slice(0, pair.indexOf('='))))
  const added = [...replaced].flatMap(([name, value]) => {
    const next = value(valueOf(name))
    return next === undefined ? [] : [`${name}=${next}`]
  })
  return [...kept, ...added]
}

/**
 * The stand-ins a guarded parent made, first on `path`. A guarded child's own children get those (also when
 * the child gives them a PATH of its own): a child makes none, which no one would remove when a pool kills it.
 */
function inheritedStandIns(path: string | undefined): string | undefined {
  const first = path?.split(':')[0]
  return first !== undefined && /(^|\/)pi-refused-programs-\w+$/.test(first) ? first : undefined
}

/** The PATH with the stand-ins first. Without PATH a shell looks in its default dirs: they come first in those too. */
function withStandIns(path: string | undefined, standIns: () => string | undefined): string | undefined {
  if (path !== undefined && inheritedStandIns(path) !== undefined) return path
  const dir = standIns()
  return dir === undefined ? path : `${dir}:${path ?? '/usr/local/bin:/usr/bin:/bin'}`
}

/** A path list (`PYTHONPATH`) with the guard's `dir` in the stand-ins first; as it was where there are none. */
function withGuardDir(list: string | undefined, standIns: () => string | undefined, dir: string): string | undefined {
  const standInsDir = standIns()
  if (standInsDir === undefined) return list
  const guard = join(standInsDir, dir)
  if (list === undefined || list === '') return guard
  return list.split(delimiter)[0] === guard ? list : `${guard}${delimiter}${list}`
}

function remember(child: Child): string {
  const state = children.get()
  const token = `pi-child-${state.next++}`
  state.byToken.set(token, child)
  if (state.byToken.size > REMEMBERED_CHILDREN) state.byToken.delete(state.byToken.keys().next().value!)
  return token
}

// What a child asked the proxy: a host, or (from a refused program's stand-in) to run that program, or (from
// Python's or Perl's guard) what it refused.
function proxyAsked({ token, agent, target, refusedArgv, refusedSocket }: ProxyRequest): void {
  const child = token === undefined ? undefined : children.get().byToken.get(token)
  const where = child === undefined ? 'a child process' : `the child process \`${child.command}\``
  if (refusedSocket !== undefined) {
    report(child, `${refusedSocket.target}, which ${refusedSocket.by} asked for itself, not through the proxy that child processes get, in ${where}; it was refused`)
  } else if (refusedArgv !== undefined) {
    const [program = '?', ...args] = refusedArgv
    report(child, `${program}, which reaches the network without a proxy, run as \`${commandLine([program, ...args])}\` by ${where}; it was not run`)
  } else {
    const asker = agent === undefined ? '' : ` by ${agent.split(' ')[0]}`
    report(child, `${target}, asked of the proxy that child processes get${asker} in ${where}; the proxy refused it`)
  }
}

/** Refuses `what` as every guard refuses, and hands it to the session that started the child, which names itself. */
function report(child: Child | undefined, what: string): Error {
  const error = refuse(what)
  return child?.scope?.refused?.(error, child.stack) ?? error
}

/** The argv as a shell would take it back, shortened: `sh -c "curl -sS https://example.com"`. */
function commandLine(args: readonly string[]): string {
  const [program = '', ...rest] = args
  const line = [program, ...rest.map((arg) => (/^[\w./:=@%+,-]+$/.test(arg) ? arg : JSON.stringify(arg)))].join(' ')
  return line.length > 200 ? `${line.slice(0, 199)}…` : line
}
