import { isAbsolute, normalize } from 'node:path'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { parse, type ParseEntry } from 'shell-quote'

/**
 * Pi's permission gate with its patterns replaced by the shell's own reading of the command: shell-quote
 * undoes quoting and escapes (`r\m`, `'rm'`), and each command of a line is judged by its program and
 * flags in any order, through wrappers (`sudo`, `env`, `xargs`, …), `sh -c` and `eval`. What it cannot read
 * (code for an interpreter, a script piped into a shell) it asks about.
 */
export default function fixedPermissionGate(pi: ExtensionAPI) {
  pi.on('tool_call', async (event, ctx) => {
    const input = event.input as { command?: unknown; path?: unknown }
    const danger = event.toolName === 'bash' ? dangerIn(String(input.command ?? '')) : fileDanger(event.toolName, String(input.path ?? ''))
    if (danger === undefined) return undefined
    if (!ctx.hasUI) return { block: true, reason: `Dangerous command blocked (no UI for confirmation): ${danger}` }
    const choice = await ctx.ui.select(`⚠️ Dangerous command (${danger}):\n\n  ${JSON.stringify(event.input)}\n\nAllow?`, ['Yes', 'No'])
    return choice === 'Yes' ? undefined : { block: true, reason: `Blocked by user: ${danger}` }
  })
}

const WRAPPERS: Record<string, string[]> = { env: ['-u'], command: [], nice: ['-n'], nohup: [], time: [], timeout: [], xargs: ['-I', '-n', '-P', '-L', '-d'], exec: [] }
const AS_ROOT = new Set(['sudo', 'su', 'doas', 'pkexec', 'runuser', 'setcap', 'chpasswd', 'visudo'])
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh'])
const INTERPRETERS = new Set(['python', 'python3', 'node', 'perl', 'ruby'])
const SEPARATORS = new Set([';', '&&', '||', '&', '|', '|&', '(', ')', '<(', ';;'])

/** Outside the project, or the whole of it: `/`, `~`, `$HOME`, `.`, `..`, `*`, `src/../..`. */
function broad(path: string): boolean {
  if (/^[~$]/.test(path) || isAbsolute(path)) return true
  const normal = normalize(path)
  return normal === '.' || normal === '..' || normal.startsWith('../') || path === '*'
}

function fileDanger(tool: string, path: string): string | undefined {
  if ((tool === 'write' || tool === 'edit') && /^\/etc\/(sudoers|passwd|shadow)/.test(path)) return `${tool} to ${path}`
  return undefined
}

/** Why the command line is dangerous, or undefined. */
function dangerIn(line: string, depth = 0): string | undefined {
  if (depth > 4) return 'commands nested too deep to read'
  const tokens = parse(line, (name) => `$${name}`)
  let words: string[] = []
  let piped = false
  let redirects: string[] = []
  for (let i = 0; i <= tokens.length; i++) {
    const token: ParseEntry | undefined = tokens[i]
    const op = token !== undefined && typeof token === 'object' && 'op' in token && token.op !== 'glob' ? token.op : undefined
    if (op === '>' || op === '>>') {
      redirects.push(String(tokens[++i]))
      continue
    }
    if (token !== undefined && op === undefined) {
      if (typeof token === 'string') words.push(token)
      else if ('pattern' in token) words.push(token.pattern)
      continue
    }
    const danger = words.length > 0 ? commandDanger(words, redirects, piped, depth) : undefined
    if (danger) return danger
    piped = op === '|' || op === '|&'
    words = []
    redirects = []
  }
  return undefined
}

function commandDanger(words: string[], redirects: string[], piped: boolean, depth: number): string | undefined {
  let rest = words.filter((word, i) => i > 0 || !/^\w+=/.test(word))
  let viaXargs = false
  for (let name = base(rest[0]); name in WRAPPERS; name = base(rest[0])) {
    viaXargs ||= name === 'xargs'
    rest = rest.slice(1)
    while (rest[0]?.startsWith('-') || /^\w+=/.test(rest[0] ?? '') || (name === 'timeout' && /^\d/.test(rest[0] ?? ''))) {
      if (WRAPPERS[name]!.includes(rest.shift()!)) rest.shift()
    }
  }
  const [program, args] = [base(rest[0]), rest.slice(1)]
  const flags = args.filter((a) => a.startsWith('-'))
  const operands = args.filter((a) => !a.startsWith('-'))
  const cluster = (letters: string, long: string) => flags.some((f) => f === long || (/^-[a-zA-Z]+$/.test(f) && [...letters].some((l) => f.includes(l))))
  if (redirects.some((target) => target.startsWith('/etc/'))) return 'writes system configuration'
  if (AS_ROOT.has(program) && !(program === 'sudo' && args.every((a) => a === '--version' || a === '-V'))) return `${program} runs as another user`
  if ((program === 'usermod' || program === 'gpasswd') && args.some((a) => a === 'sudo' || a === 'wheel')) return 'adds an administrator'
  if (program === 'chmod' && /s|^[4267]\d{3}$|777/.test(operands[0] ?? '')) return 'setuid or world-writable permissions'
  if (program === 'chown' && /^root\b/.test(operands[0] ?? '')) return 'gives a file to root'
  if (program === 'tee' && operands.some((path) => path.startsWith('/etc/'))) return 'writes system configuration'
  if (program === 'rm' && cluster('rR', '--recursive') && (viaXargs || operands.some(broad))) return 'recursive delete outside the project'
  if (program === 'rm' && cluster('f', '--force') && operands.some(broad)) return 'forced delete outside the project'
  if (program === 'find' && (args.includes('-delete') || args[args.indexOf('-exec') + 1] === 'rm') && !args.some((a) => /^-i?(name|path|regex)$/.test(a))) {
    return 'find deletes without a filter'
  }
  if (SHELLS.has(program) && args.includes('-c')) return dangerIn(args[args.indexOf('-c') + 1] ?? '', depth + 1)
  if (program === 'eval') return dangerIn(args.join(' '), depth + 1)
  if (INTERPRETERS.has(program) && flags.some((f) => /^-\w*[ce]$/.test(f))) return `${program} code the gate cannot read`
  if (piped && (SHELLS.has(program) || INTERPRETERS.has(program)) && operands.length === 0) return 'a script piped into a shell'
  return undefined
}

const base = (word: string | undefined) => (word ?? '').split('/').pop()!
