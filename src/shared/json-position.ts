// Where a JSON text stops being JSON. V8's JSON.parse names no position for an unexpected token
// ("Unexpected token '}', ..."ersion": }" is not valid JSON"), and only a character offset otherwise, so
// errors that must name a line find it here: a strict scan of the grammar, stopping at the first wrong character.

/** The 1-based line and column of the first character that makes `text` invalid JSON; undefined when it is valid. */
export function jsonErrorPosition(text: string): { line: number; column: number } | undefined {
  const offset = firstInvalidOffset(text)
  if (offset === undefined) return undefined
  const before = text.slice(0, offset)
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y
const WHITESPACE = /[ \t\n\r]*/y

class Invalid {
  constructor(readonly offset: number) {}
}

function firstInvalidOffset(text: string): number | undefined {
  let at = 0
  const skip = () => {
    WHITESPACE.lastIndex = at
    WHITESPACE.exec(text)
    at = WHITESPACE.lastIndex
  }
  const token = (pattern: RegExp) => {
    pattern.lastIndex = at
    if (!pattern.test(text)) throw new Invalid(at)
    at = pattern.lastIndex
  }
  const expect = (char: string) => {
    if (text[at] !== char) throw new Invalid(at)
    at++
  }
  const value = (): void => {
    skip()
    const char = text[at]
    if (char === '{') return members('}', () => {
      skip()
      token(STRING)
      skip()
      expect(':')
      value()
    })
    if (char === '[') return members(']', value)
    if (char === '"') return token(STRING)
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, at)) {
        at += word.length
        return
      }
    }
    token(NUMBER)
  }
  // `{ a, b }` and `[ a, b ]`: items separated by commas, none after the last.
  const members = (close: string, item: () => void) => {
    at++
    skip()
    if (text[at] === close) {
      at++
      return
    }
    for (;;) {
      item()
      skip()
      if (text[at] === close) {
        at++
        return
      }
      expect(',')
    }
  }
  try {
    value()
    skip()
    return at < text.length ? at : undefined
  } catch (error) {
    if (error instanceof Invalid) return error.offset
    throw error
  }
}
