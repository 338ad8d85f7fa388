// JavaScript source for values, as a person writes them: single quotes, bare keys, one line when it fits.

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
const WIDTH = 100

export function quote(text: string): string {
  // Double quotes for a text with single quotes and no double ones, as a person would.
  const mark = text.includes("'") && !text.includes('"') ? '"' : "'"
  const escaped = text.replace(/[\\'"\n\r\t\u0000-\u001f\u2028\u2029]/g, (char) => {
    if ((char === "'" || char === '"') && char !== mark) return char
    const named: Record<string, string> = { '\\': '\\\\', "'": "\\'", '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' }
    return named[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
  })
  return `${mark}${escaped}${mark}`
}

/** `value` as source; a `Code` inside it is written as it is (a fixture read, not a text). */
export function literal(value: unknown, indent = ''): string {
  if (value instanceof Code) return value.code
  if (typeof value === 'string') return quote(value)
  if (value === undefined) return 'undefined'
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  const inner = `${indent}  `
  const items = Array.isArray(value)
    ? value.map((item) => literal(item, inner))
    : Object.entries(value).map(([key, item]) => `${IDENTIFIER.test(key) ? key : quote(key)}: ${literal(item, inner)}`)
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{ ', ' }']
  if (items.length === 0) return Array.isArray(value) ? '[]' : '{}'
  const oneLine = `${open}${items.join(', ')}${close}`
  if (oneLine.length + indent.length <= WIDTH && !oneLine.includes('\n')) return oneLine
  return `${open.trim()}\n${items.map((item) => `${inner}${item},`).join('\n')}\n${indent}${close.trim()}`
}

/** Source that `literal` writes as it is. */
export class Code {
  constructor(readonly code: string) {}
}
