// How a shell reads a command line, as far as the corpus's labels need: shell-quote tokenizes (quotes, escapes,
// operators, globs), and this file splits the tokens into the simple commands that run, through wrappers
// (sudo, env, command, xargs, nice, …), `sh -c`, `eval`, command and process substitution, and payloads decoded
// into a shell (base64, hex, printf escapes). Used only to check the corpus's labels; never runs anything.
import { posix } from 'node:path'
import { parse, type ParseEntry } from 'shell-quote'

export interface Redirect {
  op: string
  target: string
}

export interface SimpleCommand {
  /** The program's base name (`/bin/rm` → `rm`), after wrappers; '' when a wrapper runs a shell (`sudo -i`). */
  program: string
  /** The program as written (`/tmp/x`). */
  invoked: string
  args: string[]
  redirects: Redirect[]
  /** A wrapper that runs as another user (sudo, doas, su, pkexec, runuser) came before it. */
  elevated: boolean
  /** xargs runs it: more arguments come from its standard input. */
  viaXargs: boolean
  /** The commands before it in its pipeline, nearest last. */
  upstream: SimpleCommand[]
  /** Code given to an interpreter (`python -c CODE`, `node -e CODE`, `perl -e CODE`, `ruby -e CODE`). */
  code?: string
  /** The line it came from. */
  line: string
}

const SEPARATORS = new Set([';', '&&', '||', '&', ';;', '(', ')', '<(', '|', '|&'])
const REDIRECTS = new Set(['>', '>>', '<', '>&', '<<', '<<<'])
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh'])
const INTERPRETERS: Record<string, string[]> = { python: ['-c'], python3: ['-c'], node: ['-e', '--eval', '-p'], perl: ['-e', '-ne', '-pe', '-pi', '-E'], ruby: ['-e'] }
const ELEVATORS = new Set(['sudo', 'doas', 'pkexec', 'runuser', 'su'])
// Wrappers and how many words their options take.
const OPTION_ARGS: Record<string, Set<string>> = {
  sudo: new Set(['-u', '-g', '-C', '-p', '-h', '-U', '-r', '-t', '-D']),
  doas: new Set(['-u', '-C']),
  runuser: new Set(['-u', '-g', '-G']),
  env: new Set(['-u', '-C', '-S']),
  nice: new Set(['-n']),
  ionice: new Set(['-c', '-n']),
  xargs: new Set(['-I', '-n', '-P', '-L', '-d', '-E', '-s']),
  stdbuf: new Set([]),
  timeout: new Set(['-s', '-k']),
  command: new Set([]),
  builtin: new Set([]),
  exec: new Set([]),
  nohup: new Set([]),
  time: new Set([]),
  pkexec: new Set(['--user']),
}

const word = (entry: ParseEntry): string | undefined => {
  if (typeof entry === 'string') return entry
  if ('pattern' in entry) return entry.pattern
  return undefined
}

/** Every simple command the line runs, nested ones included. */
export function commandsOf(line: string, depth = 0): SimpleCommand[] {
  if (depth > 5) return []
  // Variables stay as written: `$HOME` is the home directory, not an empty word.
  const tokens = parse(line, (name) => `$${name}`)
  const result: SimpleCommand[] = []
  let words: string[] = []
  let redirects: Redirect[] = []
  let pipeline: SimpleCommand[] = []
  const flush = (op: string | undefined) => {
    if (words.length > 0) {
      const commands = unwrap(words, redirects, [...pipeline], line, depth)
      result.push(...commands)
      const main = commands[0]
      if (main) pipeline.push(main)
    }
    if (op !== '|' && op !== '|&') pipeline = []
    words = []
    redirects = []
  }
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (typeof token === 'object' && 'comment' in token) continue
    if (typeof token === 'object' && 'op' in token && token.op !== 'glob') {
      if (REDIRECTS.has(token.op)) {
        const target = word(tokens[i + 1]!) ?? ''
        redirects.push({ op: token.op, target })
        i++
        // A heredoc's body follows on later lines: shell-quote reads it as words of the command.
        if (token.op === '<<') i = tokens.length
        continue
      }
      if (token.op === '<(' && words.length > 0) words.push('<(…)')
      flush(SEPARATORS.has(token.op) ? token.op : undefined)
      continue
    }
    const text = word(token)
    if (text !== undefined) words.push(text)
  }
  flush(undefined)
  // Command substitutions run too, wherever they stand.
  for (const match of line.matchAll(/\$\(([^()]*(?:\([^()]*\)[^()]*)*)\)/g)) result.push(...commandsOf(match[1]!, depth + 1))
  return result
}

/** The command `words` run, through wrappers; nested commands (sh -c, eval, decoded payloads) after it. */
function unwrap(words: string[], redirects: Redirect[], upstream: SimpleCommand[], line: string, depth: number): SimpleCommand[] {
  let rest = [...words]
  let elevated = false
  let viaXargs = false
  let wrapper = ''
  for (;;) {
    while (rest[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) rest.shift()
    const name = posix.basename(rest[0] ?? '')
    if (name === 'sudo' && rest.slice(1).every((w) => w === '-V' || w === '--version')) break
    if (name === 'su') {
      elevated = true
      const c = rest.indexOf('-c')
      rest = c >= 0 ? ['sh', '-c', rest[c + 1] ?? ''] : ['']
      continue
    }
    if (!(name in OPTION_ARGS)) break
    if (ELEVATORS.has(name)) elevated = true
    if (name === 'xargs') viaXargs = true
    wrapper = rest.shift()!
    while (rest[0] !== undefined && (rest[0].startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0]) || (name === 'timeout' && /^\d/.test(rest[0])))) {
      const option = rest.shift()!
      if (option === '--') break
      if (OPTION_ARGS[name]!.has(option)) rest.shift()
    }
  }
  // A wrapper alone runs nothing else: `env` prints the environment (but `sudo -i` opens a root shell).
  if (rest.length === 0 && wrapper !== '' && !elevated) rest = [wrapper]
  const program = posix.basename(rest[0] ?? '')
  const args = rest.slice(1)
  const command: SimpleCommand = { program, invoked: rest[0] ?? '', args, redirects, elevated, viaXargs, upstream, line }
  const nested: SimpleCommand[] = []
  const interpreterFlag = INTERPRETERS[program]?.find((flag) => args.includes(flag)) ?? (program === 'perl' ? args.find((a) => /^-\w*e$/.test(a)) : undefined)
  if (interpreterFlag !== undefined) command.code = args[args.indexOf(interpreterFlag) + 1] ?? ''
  if (SHELLS.has(program) && args.includes('-c')) nested.push(...commandsOf(args[args.indexOf('-c') + 1] ?? '', depth + 1))
  if (program === 'eval') nested.push(...commandsOf(args.join(' '), depth + 1))
  if (readsScriptFromStdin(command)) {
    const payload = decodedPayload(upstream)
    if (payload !== undefined) nested.push(...commandsOf(payload, depth + 1))
  }
  return [command, ...nested]
}

/** A shell or interpreter that runs what comes on its standard input. */
export function readsScriptFromStdin(command: SimpleCommand): boolean {
  const { program, args } = command
  if (program === '' && command.elevated) return true
  if (SHELLS.has(program)) return !args.includes('-c') && args.filter((a) => !a.startsWith('-')).length === 0 || args.includes('-s')
  if (program in INTERPRETERS) return command.code === undefined && !args.includes('-m') && args.filter((a) => !a.startsWith('-')).length === 0
  return false
}

/** The text an `echo X | base64 -d` (or `xxd -r -p`, or printf escapes) pipeline hands on, decoded. */
function decodedPayload(upstream: SimpleCommand[]): string | undefined {
  const decoder = upstream.at(-1)
  const source = upstream.at(-2)
  if (decoder?.program === 'printf') return decoder.args[0]?.replace(/\\x([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  if (!decoder || source?.program !== 'echo') return undefined
  const data = source.args.join(' ')
  if (decoder.program === 'base64' && decoder.args.some((a) => a === '-d' || a === '--decode')) return Buffer.from(data, 'base64').toString('utf8')
  if (decoder.program === 'xxd' && decoder.args.includes('-r')) return Buffer.from(data, 'hex').toString('utf8')
  return undefined
}
