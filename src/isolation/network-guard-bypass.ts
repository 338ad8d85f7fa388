// Programs told on their command line to go around what guards a child process: curl's `--noproxy '*'` or a
// proxy of its own, wget's `--no-proxy`, Python's `-I`, `-E` or `-S` (which skip the guard's sitecustomize)
// and Perl's `-T` (which ignores PERL5OPT). So started, they would reach the network unguarded: they are
// refused at the spawn, started directly, through a command that runs others (`env`, `timeout 5`), by a
// shell's command, or by a script's `#!` line.
import { closeSync, constants, openSync, readSync } from 'node:fs'
import { resolve } from 'node:path'
import { isLoopback } from './network-policy.js'
import { startedPrograms, type StartedProgram } from './started-programs.js'

/** The words that do it (`curl --noproxy *`) and what they do, for the refusal. */
export interface GuardBypass {
  words: string
  why: string
}

interface Program {
  named: RegExp
  /** The option, with its value, that goes around the guard; undefined when none does. */
  read: (args: readonly string[]) => string | undefined
  why: string
}

const AROUND_PROXY = 'tells the program not to use the proxy that child processes get'
const PROGRAMS: Program[] = [
  { named: /^curl$/, read: curlAround, why: AROUND_PROXY },
  { named: /^wget$/, read: wgetAround, why: AROUND_PROXY },
  { named: /^(python|pypy)[\d.]*$/, read: pythonAround, why: "starts Python without the network guard's sitecustomize, which child processes get" },
  { named: /^perl[\d.]*$/, read: perlAround, why: "starts Perl without the network guard's module, which child processes get" },
]

/**
 * What tells a child, of which `started` are the programs its command line starts (startedPrograms), started
 * in `cwd`, to go around the guard; undefined when nothing does, as far as can be told. A proxy or an exception
 * for loopback alone goes nowhere else, and is no bypass. A script named by its path is read for its `#!`
 * line, whose interpreter and flags start it (`#!/usr/bin/perl -T`).
 */
export function guardBypass(started: readonly StartedProgram[], cwd?: string): GuardBypass | undefined {
  for (const { name, word, args } of started) {
    const found = told(name, args) ?? throughShebang(word, args, cwd)
    if (found) return found
  }
  return undefined
}

function told(name: string, args: readonly string[]): GuardBypass | undefined {
  const program = PROGRAMS.find(({ named }) => named.test(name))
  const words = program?.read(args)
  return words === undefined ? undefined : { words: `${name} ${words}`, why: program!.why }
}

function throughShebang(word: string, args: readonly string[], cwd: string | undefined): GuardBypass | undefined {
  const line = word.includes('/') ? shebang(resolve(cwd ?? process.cwd(), word)) : undefined
  if (line === undefined) return undefined
  // The kernel passes the rest of the line as one argument, which `env -S` splits: as words, either way.
  const interpreter = line.split(/\s+/).filter((part) => part !== '' && part !== '-S')
  for (const started of startedPrograms(interpreter[0]!, [...interpreter, word, ...args])) {
    const found = told(started.name, started.args)
    if (found) return { ...found, words: `${found.words} (the #! line of ${word})` }
  }
  return undefined
}

/** The `#!` line of the file at `path`, without `#!`; undefined for a file without one, or none at all. */
function shebang(path: string): string | undefined {
  let fd: number | undefined
  try {
    // Non-blocking: a FIFO named as a program must not hold the spawn until someone writes to it.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
    const head = Buffer.alloc(SHEBANG_BYTES)
    const text = head.toString('latin1', 0, readSync(fd, head, 0, SHEBANG_BYTES, 0))
    return text.startsWith('#!') ? text.slice(2).split('\n')[0]!.trim() || undefined : undefined
  } catch {
    // Not there, not readable, a directory, a FIFO with no writer: nothing runs it with flags of its own.
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

// Linux reads at most 256 bytes of a #! line.
const SHEBANG_BYTES = 256

// curl: `--noproxy <hosts>` (`*` for all), and a proxy of its own (`-x`, `--proxy`, `--preproxy`, SOCKS),
// which the proxy variables then do not name. Going around the proxy to loopback alone goes nowhere else:
// `curl --noproxy '*' http://127.0.0.1:8080/health` runs.
const CURL_PROXIES = new Set(['-x', '--proxy', '--preproxy', '--socks4', '--socks4a', '--socks5', '--socks5-hostname'])
// curl's options whose value (the next word) names no host: a file, a header, a method, data, a limit.
const CURL_VALUES = new Set(['--noproxy', '--output', '--header', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--json', '--request', '--user', '--user-agent', '--referer', '--cookie', '--cookie-jar', '--write-out', '--upload-file', '--form', '--max-time', '--connect-timeout', '--retry', '--retry-delay', '--retry-max-time', '--range', '--continue-at', '--dump-header', '--stderr', '--trace', '--trace-ascii', '--cacert', '--cert', '--key'])
const CURL_SHORT_VALUES = 'oHdXuAebcwTFmrCDE'

function curlAround(args: readonly string[]): string | undefined {
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!
    const attached = arg.startsWith('-x') && arg.length > 2 ? arg.slice(2) : undefined
    const value = attached ?? args[at + 1] ?? ''
    if (arg === '--noproxy' && !allLoopback(value) && !onlyLoopbackTargets(args)) return `${arg} ${value}`
    if ((CURL_PROXIES.has(arg) || attached !== undefined) && !isLoopback(hostOf(value))) return attached === undefined ? `${arg} ${value}` : arg
  }
  return undefined
}

// wget: `--no-proxy`, `-Y off` / `--proxy=off`, and its settings given by `-e` / `--execute`: `use_proxy=off`,
// `https_proxy=…`, `no_proxy=…`. Refused also for an address on loopback: wget follows redirects by default,
// and one from loopback to anywhere would go around the proxy too.
function wgetAround(args: readonly string[]): string | undefined {
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!
    const proxy = arg === '-Y' ? args[at + 1] : /^(?:-Y|--proxy=)(.*)$/.exec(arg)?.[1]
    const setting = arg === '-e' || arg === '--execute' ? args[at + 1] : /^(?:-e|--execute=)(.+)$/.exec(arg)?.[1]
    if (arg === '--no-proxy' || (proxy !== undefined && OFF.test(proxy.trim())) || (setting !== undefined && wgetSettingAround(setting))) {
      return arg === '-Y' || arg === '-e' || arg === '--execute' ? `${arg} ${args[at + 1]}` : arg
    }
  }
  return undefined
}

const OFF = /^(off|no|0)$/i

function wgetSettingAround(setting: string): boolean {
  const [, name = '', value = ''] = /^\s*([\w-]+)\s*=\s*(.*?)\s*$/.exec(setting) ?? []
  const key = name.toLowerCase().replaceAll('-', '_')
  if (key === 'use_proxy' || key === 'proxy') return OFF.test(value)
  if (key === 'http_proxy' || key === 'https_proxy' || key === 'ftp_proxy') return !isLoopback(hostOf(value))
  if (key === 'no_proxy') return !allLoopback(value)
  return false
}

const allLoopback = (hosts: string) => hosts.split(',').every((host) => isLoopback(host.trim()))

/**
 * Whether curl with `args` goes to loopback alone: every word that is no option nor the value of one is an
 * address on loopback (`http://127.0.0.1:8080/x`, `localhost:3000`), there is one, and no redirect is
 * followed (`-L`), which could lead anywhere. The value of an option curl has that is not in CURL_VALUES (a
 * config file, `--connect-to`) counts as an address, so that what cannot be read is no loopback.
 */
function onlyLoopbackTargets(args: readonly string[]): boolean {
  let targets = 0
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!
    if (arg === '--location' || arg === '--location-trusted' || /^-[A-Za-z]*L/.test(arg)) return false
    if (arg.startsWith('-') && arg.length > 1) {
      if (CURL_VALUES.has(arg) || (/^-[A-Za-z]+$/.test(arg) && CURL_SHORT_VALUES.includes(arg.at(-1)!))) at++
      continue
    }
    if (!isLoopback(hostOf(arg))) return false
    targets++
  }
  return targets > 0
}

// An address as curl and wget take one, a proxy's too: `[scheme://][user@]host[:port][/path]`, the host in
// group 1 (`[::1]` kept in brackets, which isLoopback reads).
const ADDRESS = /^(?:[a-z][\w+.-]*:\/\/)?(?:[^/@\s]*@)?(\[[^\]]*\]|[^/:?#@\s[\]]+)(?::\d*)?(?:[/?#].*)?$/i

/** `example.com` for `http://user:pw@example.com:8080/`, `[::1]` for `[::1]:3128`; '' for what is no address. */
const hostOf = (value: string) => ADDRESS.exec(value.trim())?.[1] ?? ''

// Python: `-I` (isolated), `-E` (no PYTHON* variables, so no PYTHONPATH) and `-S` (no site, so no
// sitecustomize), also in a cluster (`-IB`), among the options before the script, `-c` or `-m`.
function pythonAround(args: readonly string[]): string | undefined {
  return flagAmong(args, { flags: 'IES', ending: 'cm', valued: 'WX' })
}

// Perl: `-T` and `-t` (taint mode, which ignores PERL5OPT and PERL5LIB), among the switches before the script;
// `-e` may come more than once. `-I`, `-M` and the like take the rest of their cluster.
function perlAround(args: readonly string[]): string | undefined {
  return flagAmong(args, { flags: 'Tt', ending: '', valued: 'eE', rest: 'IMmixdDCl0' })
}

interface Letters {
  /** Those that go around the guard. */
  flags: string
  /** Those that end the options (Python's `-c code`). */
  ending: string
  /** Those that take the rest of the cluster, or the next word (`-W error`, `-e code`). */
  valued: string
  /** Those that take the rest of the cluster only (`-Mstrict`). */
  rest?: string
}

/** The first of `letters.flags` in the option clusters before the program's script (`-IB` holds `I`), as `-I`. */
function flagAmong(args: readonly string[], letters: Letters): string | undefined {
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!
    if (arg.startsWith('--') && arg !== '--') continue
    if (arg === '--' || arg === '-' || !arg.startsWith('-')) return undefined
    for (const [index, letter] of [...arg.slice(1)].entries()) {
      if (letters.flags.includes(letter)) return `-${letter}`
      if (letters.ending.includes(letter)) return undefined
      if (letters.valued.includes(letter) && index === arg.length - 2) at++
      if (letters.valued.includes(letter) || letters.rest?.includes(letter)) break
    }
  }
  return undefined
}
