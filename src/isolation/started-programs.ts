// Which programs a child's command line starts: the child's own program, a program that a command such as
// `env`, `timeout 5` or `sudo -u bob` runs, a busybox applet, and each simple command of a shell's `-c`
// (and of the shells it starts). As far as the argv tells, not a shell's grammar: a program's name as
// another command's argument (`echo curl`, `grep python`) starts nothing.
import { basename } from 'node:path'

/** A program the command line starts. */
export interface StartedProgram {
  /** `nc` for `/usr/bin/nc`. */
  name: string
  /** As written: `/usr/bin/nc`, or `nc`, which the child finds on its PATH. */
  word: string
  /** Its arguments. */
  args: readonly string[]
  /** The child's own program, a busybox applet, or one run by another program (a wrapper or a shell). */
  how: 'spawned' | 'applet' | 'run'
  /** A shell's `-c` command. */
  script?: string
}

/** Programs that run a command line given as an argument (`sh -c …`). */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash'])

/** `git` for `/usr/bin/git` and `git.exe`. */
function programName(file: string): string {
  return basename(file).replace(/\.(exe|cmd|bat)$/i, '')
}

/** The programs the child `file` with `args` (Node's normalised argv, args[0] the program's name) starts. */
export function startedPrograms(file: string, args: readonly string[]): StartedProgram[] {
  return startedBy([file, ...args.slice(1)], 'spawned')
}

function startedBy(words: readonly string[], how: StartedProgram['how']): StartedProgram[] {
  const at = commandAt(words)
  if (at === undefined) return []
  const word = words[at]!
  const name = programName(word)
  const args = words.slice(at + 1)
  if (name === 'busybox') return startedBy(args, 'applet')
  const started: StartedProgram = { name, word, args, how: at === 0 ? how : 'run' }
  if (!SHELLS.has(name)) return [started]
  const script = shellScript(args)
  if (script === undefined) return [started]
  return [{ ...started, script }, ...shellCommands(script).flatMap((command) => startedBy(command, 'run'))]
}

// Commands that run the rest of their words as a command, with the options of theirs that take a value as
// the next word, and the words of their own before the command (timeout's duration).
const WRAPPERS = new Map<string, { valued: string; before?: number }>(Object.entries({
  env: { valued: 'uCS' },
  sudo: { valued: 'ugCDhprtTU' },
  doas: { valued: 'uC' },
  nice: { valued: 'n' },
  nohup: { valued: '' },
  setsid: { valued: '' },
  time: { valued: 'fo' },
  timeout: { valued: 'sk', before: 1 },
  stdbuf: { valued: 'ioe' },
  xargs: { valued: 'aEdIiLlnPs' },
  exec: { valued: 'a' },
  command: { valued: '' },
}))
// Words of a shell's grammar around a command, which are not its program.
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}'])
const ASSIGNMENT = /^[A-Za-z_]\w*=/

/** Where the program of `words` is, past assignments, keywords and wrappers; undefined when none runs. */
function commandAt(words: readonly string[]): number | undefined {
  let at = 0
  while (at < words.length && (ASSIGNMENT.test(words[at]!) || KEYWORDS.has(words[at]!))) at++
  for (let wrapper = wrapperAt(words, at); wrapper !== undefined; wrapper = wrapperAt(words, at)) {
    let positional = wrapper.before ?? 0
    for (at++; at < words.length; at++) {
      const word = words[at]!
      // `-u bob`: the option's value is the next word; `-n5`, `--signal=KILL`, `-i`, `--` are whole.
      if (/^-[A-Za-z]$/.test(word) && wrapper.valued.includes(word[1]!)) at++
      else if (!word.startsWith('-') && !ASSIGNMENT.test(word) && positional-- <= 0) break
    }
  }
  return at < words.length ? at : undefined
}

const wrapperAt = (words: readonly string[], at: number) => (at < words.length ? WRAPPERS.get(programName(words[at]!)) : undefined)

/**
 * The command a shell runs from its arguments: the word after `-c` (or a cluster holding it: `-ec`), among
 * the options before the first other word (a script's name, whose own arguments follow it).
 */
function shellScript(args: readonly string[]): string | undefined {
  let command = false
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!
    if (!/^[-+]/.test(arg) || arg === '-' || arg === '--') return command ? (arg === '--' ? args[at + 1] : arg) : undefined
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(arg)) command = true
    // `-o pipefail`, `+O extglob`: a shell option's name is the next word.
    if (/^[-+][oO]$/.test(arg)) at++
  }
  return undefined
}

/**
 * A shell command's simple commands, each as its words with the quotes taken off: `a 'b c' && d` is
 * `[a, b c]`, `[d]`. As far as a test needs, not a shell's grammar: no expansions, here-docs or escapes in
 * single quotes.
 */
export function shellCommands(command: string): string[][] {
  const commands: string[][] = [[]]
  for (const [token] of command.matchAll(/(?:'[^']*'|"(?:\\.|[^"\\])*"|\\.|[^\s'"\\;&|()`])+|[;&|()`\n]+/g)) {
    if (/^[;&|()`\n]+$/.test(token)) commands.push([])
    else commands.at(-1)!.push(unquote(token))
  }
  return commands.filter((words) => words.length > 0)
}

const unquote = (word: string) =>
  word.replace(/'([^']*)'|"((?:\\.|[^"\\])*)"|\\(.)/g, (_, single?: string, double?: string, escaped?: string) => single ?? double?.replace(/\\(["\\$`])/g, '$1') ?? escaped ?? '')
