// Secrets out of a session before it becomes a test that is committed: API keys, tokens, Authorization
// headers and the user's home path, each replaced by a placeholder that says what was there. The same
// secret gets the same placeholder everywhere, so a test that passes a key from the prompt to a tool
// still sees one value.
import { homedir } from 'node:os'

interface Pattern {
  readonly kind: string
  readonly pattern: RegExp
  /** The capture group holding the secret; the rest of the match stays (a header's name, a variable's). */
  readonly group?: number
}

const PATTERNS: readonly Pattern[] = [
  { kind: 'Authorization header', pattern: /\b(authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)?\s*)([^\s"',;]{4,})/gi, group: 2 },
  { kind: 'bearer token', pattern: /\b(bearer\s+)([A-Za-z0-9._~+/=-]{8,})/gi, group: 2 },
  { kind: 'API key', pattern: /\b(?:sk-ant-[A-Za-z0-9_-]{8,}|sk-(?:proj-)?[A-Za-z0-9_-]{16,}|sk_(?:test|live)_[A-Za-z0-9]{4,}|rk_(?:test|live)_[A-Za-z0-9]{4,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|xai-[A-Za-z0-9]{16,})\b/g },
  { kind: 'token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|npm_[A-Za-z0-9]{30,}|xox[abprs]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})\b/g },
  // KEY=value, "api_key": "value", password: value — the name says the value is a secret.
  {
    kind: 'secret value',
    pattern: /\b([A-Za-z0-9_]*(?:api[_-]?key|apikey|secret|token|password|passwd)["']?\s*[:=]\s*["']?)((?!<redacted)[^\s"',;]{6,})/gi,
    group: 2,
  },
]

export interface Redaction {
  readonly kind: string
  /** How many places held it. */
  count: number
  readonly placeholder: string
}

export class Redactor {
  private readonly bySecret = new Map<string, Redaction>()
  private readonly numbers = new Map<string, number>()
  private readonly homes: string[]

  constructor(home: string = homedir()) {
    // The running user's home, and any other user's home path a file names (/home/x, /Users/x, C:\Users\x).
    this.homes = home && home !== '/' ? [home] : []
  }

  text(text: string): string {
    let out = text
    for (const home of this.homes) out = this.replaceAll(out, home, 'home path', '~')
    out = out.replace(/(?:\/home\/|\/Users\/|[A-Z]:\\Users\\)[A-Za-z0-9._-]+/g, (home) => this.placeholder(home, 'home path', '~'))
    for (const { kind, pattern, group } of PATTERNS) {
      out = out.replace(pattern, (...match: string[]) => {
        if (group === undefined) return this.placeholder(match[0]!, kind)
        const secret = match[group]!
        const before = match.slice(1, group).join('')
        return `${before}${this.placeholder(secret, kind)}`
      })
    }
    return out
  }

  /** Every string inside `value` (keys too), redacted. */
  value<T>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T
    if (Array.isArray(value)) return value.map((item) => this.value(item)) as T
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.value(item)])) as T
    }
    return value
  }

  /** What was redacted, one line per secret, without the secret. */
  report(): string[] {
    // Secrets that share a placeholder (every home path is `~`) are one line.
    const lines = new Map<string, { kind: string; count: number }>()
    for (const { kind, count, placeholder } of this.bySecret.values()) {
      const line = lines.get(placeholder) ?? { kind, count: 0 }
      line.count += count
      lines.set(placeholder, line)
    }
    return [...lines].map(([placeholder, { kind, count }]) => `${kind} → ${placeholder} (${count} place${count === 1 ? '' : 's'})`)
  }

  private replaceAll(text: string, secret: string, kind: string, placeholder: string): string {
    return text.includes(secret) ? text.split(secret).join(this.placeholder(secret, kind, placeholder, text.split(secret).length - 1)) : text
  }

  private placeholder(secret: string, kind: string, fixed?: string, times = 1): string {
    const known = this.bySecret.get(secret)
    if (known) {
      known.count += times
      return known.placeholder
    }
    const n = (this.numbers.get(kind) ?? 0) + 1
    this.numbers.set(kind, n)
    const placeholder = fixed ?? `<redacted ${kind.toLowerCase().replaceAll(' ', '-')} ${n}>`
    this.bySecret.set(secret, { kind, count: times, placeholder })
    return placeholder
  }
}
