// Programs that reach the network without asking the proxy that child processes get: started directly they
// are refused at the spawn; run by a shell or a script by name, they find a stand-in first on PATH that
// refuses them and tells the proxy, so that the test fails naming them.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { globalSlot } from '../shared/global-slot.js'
import { writePerlGuard } from './network-perl.js'
import { writePythonGuard } from './network-python.js'
import type { StartedProgram } from './started-programs.js'

/** Clients of ssh, raw TCP and UDP, ICMP and DNS: none of them honours http_proxy. */
export const REFUSED_PROGRAMS = [
  'ssh', 'scp', 'sftp', 'mosh', 'telnet', 'ftp', 'tftp',
  'nc', 'ncat', 'netcat', 'socat', 'nmap',
  'ping', 'ping6', 'traceroute', 'traceroute6', 'tracepath', 'mtr',
  'dig', 'nslookup', 'host', 'drill', 'whois',
] as const

const REFUSED = new Set<string>(REFUSED_PROGRAMS)
// Bash's and zsh's own TCP and UDP: `echo > /dev/tcp/example.com/80`.
const DEV_NET = /\/dev\/(tcp|udp)\//

/**
 * Why a child, of which `started` are the programs its command line starts (startedPrograms), would reach the
 * network unguarded: `ssh`, `busybox nc`, `/usr/bin/nc`, `/dev/tcp`; undefined when it would not, as far as
 * can be told. A refused program that another one runs by name (a shell, `env`) finds a stand-in first on
 * the child's PATH; named by a path it would not, and is refused here.
 */
export function refusedProgram(started: readonly StartedProgram[], allowed: readonly string[]): string | undefined {
  for (const { name, word, how, script } of started) {
    const devNet = script === undefined ? undefined : DEV_NET.exec(script)?.[0].replace(/\/$/, '')
    if (devNet !== undefined) return devNet
    if (!REFUSED.has(name) || allowed.includes(name)) continue
    if (how === 'spawned') return name
    if (how === 'applet') return `busybox ${name}`
    if (word.includes('/')) return word
  }
  return undefined
}

/**
 * A dir of stand-ins, one per refused program not in `allowed`, for the front of a child's PATH, with the
 * Python and Perl guards (network-python.ts, network-perl.ts); undefined on Windows, where a stand-in would be a .cmd file that a
 * program's own lookup may skip.
 */
export function refusedProgramsDir(allowed: readonly string[]): string | undefined {
  if (process.platform === 'win32') return undefined
  const dirs = standIns.get()
  const key = allowed.join(',')
  let dir = dirs.get(key)
  if (dir === undefined) {
    dir = writeStandIns(allowed)
    dirs.set(key, dir)
  }
  return dir
}

const standIns = globalSlot('refused-program-dirs', () => {
  const dirs = new Map<string, string>()
  process.once('exit', () => {
    for (const dir of dirs.values()) rmSync(dir, { recursive: true, force: true })
  })
  return dirs
})

/**
 * Removes the stand-in dirs, when the last network guard is released (a session's or a test file's end, a test
 * that guarded its own body): a Vitest worker ended by its pool never reaches the `exit` event. A later child
 * gets them made again.
 */
export function removeRefusedProgramsDirs(): void {
  const dirs = standIns.get()
  for (const dir of dirs.values()) rmSync(dir, { recursive: true, force: true })
  dirs.clear()
}

function writeStandIns(allowed: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'pi-refused-programs-'))
  const script = join(dir, 'refuse.cjs')
  writeFileSync(script, STAND_IN)
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`
  for (const name of REFUSED_PROGRAMS.filter((program) => !allowed.includes(program))) {
    writeFileSync(join(dir, name), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(script)} ${name} "$@"\n`)
    chmodSync(join(dir, name), 0o755)
  }
  writePythonGuard(dir)
  writePerlGuard(dir)
  return dir
}

// Says why on stderr, tells the proxy in the child's http_proxy (which names the child), exits 126 as a
// shell does for a command it cannot run.
const STAND_IN = `const argv = process.argv.slice(2)
process.stderr.write('Network access is disabled in tests: ' + argv[0] + ' reaches the network without the proxy that child processes get, so it is refused\\n')
const done = () => process.exit(126)
let proxy
try { proxy = new URL(process.env.http_proxy) } catch { done() }
const token = decodeURIComponent(proxy.username)
const headers = { 'content-type': 'application/json', 'proxy-authorization': 'Basic ' + Buffer.from(token + ':').toString('base64') }
require('node:http')
  .request({ host: proxy.hostname, port: proxy.port, method: 'POST', path: '/refused-program', headers }, (response) => response.resume().on('end', done))
  .on('error', done)
  .end(JSON.stringify(argv))
`
