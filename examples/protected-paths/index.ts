import { homedir } from 'node:os'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'

/**
 * Paths the `write` and `edit` tools may never touch. An entry ending in `/` protects a directory at any
 * depth (`node_modules/` also covers `packages/a/node_modules/x`); any other entry protects a file of that
 * name anywhere, or, when it contains a `/`, that path under the working directory. `.env` also covers
 * its variants (`.env.local`, `.env.production`).
 */
export const PROTECTED = ['.env', '.git/', 'node_modules/']

/** More entries, comma-separated, from the command line: `pi --protected-paths secrets/,deploy/prod.yaml`. */
export const FLAG = 'protected-paths'

/** The file a tool call targets, resolved as Pi's tools resolve it: `@` and `~` expanded, relative to `cwd`. */
export function targetOf(path: string, cwd: string): string {
  const expanded = path.replace(/^@/, '').replace(/^~(?=$|\/)/, homedir())
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded)
}

/** The entry that protects `file`, or undefined. */
export function protectedBy(file: string, cwd: string, entries: readonly string[]): string | undefined {
  const inside = relative(cwd, file)
  const outside = inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)
  const shown = outside ? file : inside
  const segments = shown.split(sep).filter(Boolean)
  const name = segments.at(-1) ?? ''
  const dirs = segments.slice(0, -1)
  return entries.find((entry) => {
    if (entry.endsWith('/')) {
      const dir = entry.split('/').filter(Boolean)
      return dirs.some((_, i) => dir.every((part, j) => dirs[i + j] === part))
    }
    if (entry.includes('/')) return shown === entry.split('/').join(sep)
    return name === entry || (entry === '.env' && name.startsWith('.env.'))
  })
}

/** Blocks `write` and `edit` on protected paths; warns in the UI when there is one, blocks silently without. */
export default function protectedPaths(pi: ExtensionAPI) {
  pi.registerFlag(FLAG, { description: 'More protected paths, comma-separated (dir/ or file)', type: 'string' })

  pi.on('tool_call', (event, ctx) => {
    if (event.toolName !== 'write' && event.toolName !== 'edit') return undefined
    const path = String(event.input.path ?? '')
    const extra = String(pi.getFlag(FLAG) ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
    const entry = protectedBy(targetOf(path, ctx.cwd), ctx.cwd, [...PROTECTED, ...extra])
    if (entry === undefined) return undefined
    const reason = `${path} is protected (${entry}); ${event.toolName} is not allowed there`
    if (ctx.hasUI) ctx.ui.notify(`Blocked ${event.toolName} to ${path}: protected by ${entry}`, 'warning')
    return { block: true, reason }
  })
}
