// Keys as a terminal sends them: `'down'` → ESC [ B. The names are pi-tui's key ids (what `matchesKey`
// takes), sent in the legacy encoding every terminal speaks (the TUI runs without the Kitty protocol).

/** A key to press (a pi-tui key id: `'down'`, `'enter'`, `'ctrl+c'`, `'x'`) or text to type, one key per character. */
export type KeyInput = string | { text: string }

/** `mockUI.custom` that runs the component instead of answering for it. */
export interface CustomKeys {
  /** Pressed in order, each on a later turn of the event loop, as a person types. */
  keys: KeyInput[]
  /** The terminal's size; default 80 × 24. */
  columns?: number
  rows?: number
}

const SCRIPT_FIELDS = new Set(['keys', 'columns', 'rows'])

/**
 * `{ keys }` (with `columns`, `rows`): a script that runs the component, whatever `keys` holds (checked where
 * it is used: `{ keys: 'down' }` is a mistake, not an answer). Any other value is what custom() resolves with.
 */
export function isCustomKeys(value: unknown): value is CustomKeys {
  return typeof value === 'object' && value !== null && 'keys' in value && Object.keys(value).every((key) => SCRIPT_FIELDS.has(key))
}

const NAMED: Record<string, string> = {
  escape: '\x1b',
  esc: '\x1b',
  enter: '\r',
  return: '\r',
  tab: '\t',
  space: ' ',
  backspace: '\x7f',
  delete: '\x1b[3~',
  insert: '\x1b[2~',
  home: '\x1b[H',
  end: '\x1b[F',
  pageUp: '\x1b[5~',
  pageDown: '\x1b[6~',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  f1: '\x1bOP',
  f2: '\x1bOQ',
  f3: '\x1bOR',
  f4: '\x1bOS',
  f5: '\x1b[15~',
  f6: '\x1b[17~',
  f7: '\x1b[18~',
  f8: '\x1b[19~',
  f9: '\x1b[20~',
  f10: '\x1b[21~',
  f11: '\x1b[23~',
  f12: '\x1b[24~',
}

// xterm's modified cursor keys: ESC [ 1 ; <1 + shift + 2·alt + 4·ctrl> <final>.
const CURSOR_FINAL: Record<string, string> = { up: 'A', down: 'B', right: 'C', left: 'D', home: 'H', end: 'F' }
const MODIFIER_BITS: Record<string, number> = { shift: 1, alt: 2, ctrl: 4 }

/** The bytes of one key id, or undefined when it is not one this module can send. */
function encodeKey(id: string): string | undefined {
  if (Object.hasOwn(NAMED, id)) return NAMED[id]
  if ([...id].length === 1) return id
  const parts = id.split('+')
  const key = parts.pop()!
  const modifiers = new Set(parts)
  if (parts.length === 0 || modifiers.size !== parts.length || parts.some((m) => !Object.hasOwn(MODIFIER_BITS, m))) return undefined
  if (Object.hasOwn(CURSOR_FINAL, key)) {
    const bits = 1 + parts.reduce((sum, m) => sum + MODIFIER_BITS[m]!, 0)
    return `\x1b[1;${bits}${CURSOR_FINAL[key]}`
  }
  if (modifiers.size === 1 && modifiers.has('shift') && key === 'tab') return '\x1b[Z'
  if (modifiers.size === 1 && modifiers.has('ctrl') && /^[a-z]$/.test(key)) return String.fromCharCode(key.charCodeAt(0) - 96)
  if (modifiers.size === 1 && modifiers.has('alt')) {
    const base = encodeKey(key)
    return base === undefined ? undefined : `\x1b${base}`
  }
  // No legacy bytes tell ctrl+shift+u from ctrl+u: the Kitty keyboard protocol's CSI u, which pi-tui reads too.
  if ([...key].length === 1) return `\x1b[${key.codePointAt(0)};${1 + parts.reduce((sum, m) => sum + MODIFIER_BITS[m]!, 0)}u`
  return undefined
}

/**
 * What the terminal sends for one scripted entry: a key id's bytes, or each character of `{ text }` as a key
 * of its own. `where` names the entry in the error for a name that is not a key.
 */
export function keystrokes(input: KeyInput, where: string): string[] {
  if (typeof input === 'object' && input !== null && typeof input.text === 'string') return [...input.text]
  const bytes = typeof input === 'string' ? encodeKey(input) : undefined
  if (bytes !== undefined) return [bytes]
  throw new Error(
    `${where}: ${JSON.stringify(input)} is not a key. Use a pi-tui key id (${Object.keys(NAMED).slice(0, 14).join(', ')}, f1…f12, ` +
      `a character, ctrl+<letter>, alt+<key>, shift+tab, ctrl/alt/shift+<arrow|home|end>, ctrl+shift+<character>), or { text: ${JSON.stringify(String(input))} } to type text`,
  )
}

/** The entry as the records show it: the key id, or the text typed. */
export const describeKey = (input: KeyInput): string => (typeof input === 'string' ? input : JSON.stringify(input.text))
