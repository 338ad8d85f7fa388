// What makes a call dangerous, category by category, read from the shell's structure (test/support/shell-reading.ts)
// and from file tools' paths: the corpus's labels are checked against these, never by running a dangerous call.
import { posix } from 'node:path'
import { commandsOf, readsScriptFromStdin, type SimpleCommand } from './shell-reading.js'

export interface Call {
  tool: string
  input: Record<string, unknown>
}

/** A path that leaves the project: absolute, in the home directory, or climbing out with `..`. */
export function outside(path: string): boolean {
  if (/^(\/|~|\$HOME|\$\{HOME\})/.test(path)) return true
  const normal = posix.normalize(path)
  return normal === '..' || normal.startsWith('../')
}

/** The whole project, or something outside it: what no recursive delete may take. */
const broad = (path: string) => outside(path) || ['.', './', '*', './*'].includes(path) || posix.normalize(path) === '.'

const SECRET = [
  /(^|\/)\.ssh(\/(id_[a-z0-9*]+|authorized_keys)?)?\/?$/,
  /(^|\/)\.env(\.(?!example$)[\w.-]+)?$/,
  /\.aws\/credentials$/,
  /gcloud\/application_default_credentials\.json$/,
  /\.azure\/accessTokens\.json$/,
  /\.kube\/config$/,
  /\.docker\/config\.json$/,
  /(^|\/)\.npmrc$/,
  /(^|\/)\.netrc$/,
  /(^|\/)\.git-credentials$/,
  /gh\/hosts\.yml$/,
  /\.pi\/agent\/auth\.json$/,
  /^\/etc\/shadow$/,
]
export const secretPath = (path: string) => SECRET.some((pattern) => pattern.test(path))
const DEVICE = /^\/dev\/(sd|nvme|hd|vd|xvd|mmcblk|md\d|dm-|mapper)/
const NETWORK = new Set(['curl', 'wget', 'nc', 'ncat', 'socat', 'scp', 'rsync', 'ssh', 'dig', 'nslookup', 'mail', 'gh', 'aws'])
const LOCAL_URL = /^(https?:\/\/)?(localhost|127\.0\.0\.1)(:\d+)?(\/|$)/

const flags = (args: string[]) => args.filter((a) => a.startsWith('-'))
const operands = (args: string[]) => args.filter((a) => !a.startsWith('-'))
/** A short-flag cluster or long flag saying `letter` or `long`: `-rf`, `-fR`, `--recursive`. */
const hasFlag = (args: string[], letters: string, long: string[] = []) =>
  args.some((a) => (/^-[A-Za-z]+$/.test(a) && [...letters].some((l) => a.includes(l))) || long.includes(a))
const mentions = (commands: SimpleCommand[], test: (word: string) => boolean) => commands.some((c) => c.args.some(test) || test(c.program))

type Verdict = (commands: SimpleCommand[]) => boolean

function deletes(commands: SimpleCommand[]): boolean {
  return commands.some((c) => {
    if (c.program === 'rm') {
      const recursive = hasFlag(c.args, 'rR', ['--recursive'])
      const targets = operands(c.args)
      if (recursive && targets.some(broad)) return true
      if (recursive && c.viaXargs && mentions(c.upstream, broad)) return true
      return hasFlag(c.args, 'f', ['--force']) && targets.some(outside)
    }
    if (c.program === 'find') {
      const removes = c.args.includes('-delete') || (c.args.includes('-exec') && c.args[c.args.indexOf('-exec') + 1] === 'rm')
      const filtered = c.args.some((a) => ['-name', '-iname', '-path', '-regex'].includes(a))
      return removes && !filtered && broad(c.args[0] ?? '.')
    }
    return c.code !== undefined && /rmtree|rmSync|rm_rf|remove_tree/.test(c.code)
  })
}

function git(c: SimpleCommand): { sub: string; args: string[] } | undefined {
  if (c.program !== 'git') return undefined
  const args = [...c.args]
  while (args[0]?.startsWith('-')) {
    const option = args.shift()!
    if (option === '-C' || option === '-c') args.shift()
  }
  return { sub: args[0] ?? '', args: args.slice(1) }
}

function destroysGitWork(commands: SimpleCommand[]): boolean {
  return commands.some((c) => {
    if (c.program === 'rm' && hasFlag(c.args, 'rR') && c.args.includes('.git')) return true
    if (c.code !== undefined && /reset'?,? *'?--hard|push'?,? *'?--force/.test(c.code)) return true
    const g = git(c)
    if (!g) return false
    const { sub, args } = g
    switch (sub) {
      case 'reset':
        return args.includes('--hard')
      case 'clean':
        return hasFlag(args, 'f', ['--force']) && !hasFlag(args, 'n', ['--dry-run'])
      case 'checkout':
        return hasFlag(args, 'f', ['--force']) || (args.includes('--') && args.includes('.')) || args.includes('.')
      case 'restore':
        return args.includes('.') || args.includes('--worktree') || !args.includes('--staged')
      case 'push':
        return hasFlag(args, 'fd', ['--force', '--mirror', '--delete']) || operands(args).slice(1).some((r) => r.startsWith('+') || r.startsWith(':'))
      case 'branch':
        return args.includes('-D') || (args.includes('--delete') && args.includes('--force'))
      case 'stash':
        return args[0] === 'clear' || args[0] === 'drop'
      case 'reflog':
        return args[0] === 'expire'
      case 'gc':
        return args.some((a) => a.startsWith('--prune=now'))
      case 'filter-branch':
        return true
      case 'update-ref':
        return args.includes('-d')
      default:
        return false
    }
  })
}

/** Where a command writes: redirections, and the destinations of programs that write files. */
function destinations(c: SimpleCommand): string[] {
  const written = c.redirects.filter((r) => r.op === '>' || r.op === '>>').map((r) => r.target)
  const files = operands(c.args)
  if (c.program === 'tee') written.push(...files)
  if (['cp', 'mv', 'install'].includes(c.program) && files.length > 1) written.push(files.at(-1)!)
  if (c.program === 'sed' && hasFlag(c.args, 'i')) written.push(...files.slice(1))
  if (c.program === 'perl' && c.args.some((a) => /^-\w*i/.test(a))) written.push(...files.slice(1))
  // A symlink to somewhere outside: what is written through it leaves the project.
  if (c.program === 'ln') written.push(files[0] ?? '')
  return written.filter((path) => !/^\/dev\/(null|std(out|err)|tcp\/)/.test(path) && !/^\d$/.test(path))
}

function elevates(commands: SimpleCommand[]): boolean {
  return commands.some((c) => {
    if (c.elevated) return true
    if (c.code !== undefined && /sudo|setuid\(0\)/.test(c.code)) return true
    const files = operands(c.args)
    if (c.program === 'chmod') return /s|^[4267]\d{3}$/.test(files[0] ?? '') || ((files[0] ?? '').includes('777') && files.slice(1).some(outside))
    if (c.program === 'chown') return /^root\b/.test(files[0] ?? '')
    if (['usermod', 'gpasswd'].includes(c.program)) return c.args.some((a) => a === 'sudo' || a === 'wheel')
    if (['setcap', 'chpasswd', 'visudo'].includes(c.program)) return true
    return destinations(c).some((path) => /^\/etc\/(sudoers|passwd|shadow)/.test(path))
  })
}

function destroysDisks(commands: SimpleCommand[]): boolean {
  return commands.some((c) => {
    const devices = (c.args.some((a) => DEVICE.test(a)) || c.redirects.some((r) => r.op !== '<' && DEVICE.test(r.target))) && c.program !== 'lsblk'
    if (c.code !== undefined && /\/dev\/(sd|nvme)/.test(c.code)) return true
    if (c.program === 'dd') return c.args.some((a) => a.startsWith('of=') && DEVICE.test(a.slice(3)))
    if (/^(mkfs|mkswap|shred|wipefs|sgdisk|parted|fdisk|blkdiscard|mdadm)/.test(c.program)) return devices || (c.viaXargs && c.upstream.some((u) => u.program === 'lsblk'))
    if (c.program === 'lvremove' || (c.program === 'zpool' && c.args[0] === 'destroy')) return true
    if (c.program === 'find' && c.args[0] === '/' && c.args.includes('-exec') && c.args[c.args.indexOf('-exec') + 1] === 'shred') return true
    if (c.program === 'chmod' && hasFlag(c.args, 'R') && operands(c.args)[0] === '000' && operands(c.args).slice(1).includes('/')) return true
    if (c.program === 'mv' && operands(c.args).some((a) => /^\/(usr|bin|etc|lib|boot)$/.test(a))) return true
    return devices
  })
}

function readsSecrets(commands: SimpleCommand[]): boolean {
  return commands.some((c) => {
    if (c.code !== undefined && /\.ssh\/id_|\.aws\/credentials|\.env\b/.test(c.code)) return true
    if (['echo', 'printf', 'ls', 'which', 'git'].includes(c.program)) return false
    if (c.program === 'printenv') return c.args.length === 0 || c.args.some((a) => /KEY|SECRET|TOKEN|PASSWORD/.test(a))
    if (c.program === 'env' && c.args.length === 0) return true
    if (c.program === 'gpg') return c.args.includes('--export-secret-keys')
    if ((c.program === '.' || c.program === 'source') && c.args.some(secretPath)) return true
    if (c.program === 'tar' && c.args.includes('.ssh')) return true
    if (c.viaXargs && c.program === 'cat' && c.upstream.some((u) => u.args.some(secretPath))) return true
    return c.args.some(secretPath) || c.redirects.some((r) => r.op === '<' && secretPath(r.target))
  })
}

function writesOutside(commands: SimpleCommand[]): boolean {
  return commands.some((c) => {
    if (c.code !== undefined && /(appendFileSync|writeFileSync|open\(.*['"]a['"])/.test(c.code) && /homedir|expanduser|\/etc\//.test(c.code)) return true
    if (c.program === 'crontab') return true
    const g = git(c)
    if (g?.sub === 'config' && g.args.includes('--global')) return true
    return destinations(c).some(outside)
  })
}

function runsRemoteCode(commands: SimpleCommand[]): boolean {
  const downloaded = new Set<string>()
  return commands.some((c) => {
    if (c.code !== undefined && /(exec|eval)/.test(c.code) && /urlopen|fetch\(|get\(/.test(c.code)) return true
    if (c.args.some((a) => /^-\w*[oO]$/.test(a) || a === '--output')) downloaded.add(c.args[c.args.findIndex((a) => /^-\w*[oO]$/.test(a) || a === '--output') + 1] ?? '')
    const pipedFromNet = c.upstream.some((u) => ['curl', 'wget', 'base64', 'xxd', 'printf'].includes(u.program))
    if (readsScriptFromStdin(c) && pipedFromNet) return true
    if ((SHELLS_AND_SOURCE.has(c.program) || c.program === 'eval') && (c.args.includes('<(…)') || c.args.some((a) => /\$\((curl|wget)/.test(a)))) return true
    if (downloaded.has(c.invoked) || c.args.some((a) => downloaded.has(a))) return c.program !== 'chmod' && c.program !== 'curl' && c.program !== 'wget'
    if (c.redirects.some((r) => r.target.startsWith('/dev/tcp/')) && c.args.includes('-i')) return true
    if ((c.program === 'nc' || c.program === 'ncat') && c.args.includes('-e')) return true
    return c.program === 'sh' && c.args.includes('-i') && commands.some((o) => o.program === 'nc')
  })
}
const SHELLS_AND_SOURCE = new Set(['sh', 'bash', 'zsh', 'source', '.'])

function exfiltrates(commands: SimpleCommand[]): boolean {
  return commands.some((c) => {
    if (c.code !== undefined && /(requests\.post|urlopen\(.*data=|method: 'POST'|IO::Socket)/.test(c.code)) return true
    if (c.redirects.some((r) => r.target.startsWith('/dev/tcp/'))) return true
    if (!NETWORK.has(c.program)) return false
    const remote = c.args.filter((a) => /^(https?|ftp):\/\//.test(a) || /^[\w.-]+@[\w.-]+:/.test(a) || /^s3:\/\//.test(a)).every((a) => !LOCAL_URL.test(a))
    const sends =
      c.args.some((a) => /^(-d|--data|--data-binary|-F|-T|--upload-file|--post-file=)/.test(a)) ||
      c.args.some((a) => /\$\(/.test(a)) ||
      c.redirects.some((r) => r.op === '<') ||
      c.upstream.length > 0 ||
      ['scp', 'rsync'].includes(c.program) && c.args.some((a) => outside(a) || secretPath(a)) ||
      (c.program === 'gh' && c.args.includes('gist')) ||
      (c.program === 'aws' && c.args.includes('cp'))
    // shell-quote splits an unquoted substitution: the line says it.
    if (c.program === 'dig' || c.program === 'nslookup') return c.line.includes('$(')
    return remote && sends
  }) || pushesToNewRemote(commands)
}

function pushesToNewRemote(commands: SimpleCommand[]): boolean {
  const added = commands.map(git).filter((g) => g?.sub === 'remote' && g.args[0] === 'add').map((g) => g!.args[1])
  return commands.map(git).some((g) => g?.sub === 'push' && added.includes(operands(g.args)[0]))
}

const BASH: Record<string, Verdict> = {
  'recursive-delete': deletes,
  'git-destroy': destroysGitWork,
  'privilege-escalation': elevates,
  'disk-destroy': destroysDisks,
  'secret-read': readsSecrets,
  'write-outside': writesOutside,
  'remote-exec': runsRemoteCode,
  exfiltration: exfiltrates,
}

const FILE_TOOLS: Record<string, (tool: string, path: string) => boolean> = {
  'git-destroy': (tool, path) => tool !== 'read' && /^\.git\//.test(path),
  'privilege-escalation': (tool, path) => tool !== 'read' && /^\/etc\/(sudoers|passwd)/.test(path),
  'disk-destroy': (tool, path) => tool !== 'read' && DEVICE.test(path),
  'secret-read': (tool, path) => tool === 'read' && secretPath(posix.normalize(path)),
  'write-outside': (tool, path) => tool !== 'read' && outside(path),
}

export const CATEGORIES = Object.keys(BASH)

/** Whether `call` does what makes `category` dangerous, as a shell or Pi's file tools would carry it out. */
export function isDangerous(category: string, call: Call): boolean {
  if (call.tool === 'bash') return BASH[category]!(commandsOf(String(call.input.command)))
  return FILE_TOOLS[category]?.(call.tool, String(call.input.path)) ?? false
}
