// The line of a JSON file's first wrong character, which V8's own message does not always give.
import { describe, expect, it } from 'vitest'
import { jsonProblem } from '../src/cli/errors.js'
import { jsonErrorPosition } from '../src/shared/json-position.js'

describe('jsonErrorPosition', () => {
  it.each([
    ['{ "a": [1, -2.5e3, true, false, null, "x\\u00e9\\n"], "b": {} }', undefined],
    ['  []  \n', undefined],
    ['{\n  "name": "x",\n  "version": \n}\n', { line: 4, column: 1 }],
    ['{\n  "a": 1,\n}', { line: 3, column: 1 }],
    ['{ "a": 1 "b": 2 }', { line: 1, column: 10 }],
    ['[1,\n 2,,]', { line: 2, column: 4 }],
    ["{ 'a': 1 }", { line: 1, column: 3 }],
    ['{ "a": 01 }', { line: 1, column: 9 }],
    ['{ "a": "line\nbreak" }', { line: 1, column: 8 }],
    ['{ "a": 1 }\n{ "b": 2 }', { line: 2, column: 1 }],
    ['{ "a": [1, 2', { line: 1, column: 13 }],
    ['', { line: 1, column: 1 }],
  ])('%j → %j', (text, position) => {
    expect(jsonErrorPosition(text)).toEqual(position)
    // Agrees with JSON.parse on what is valid.
    expect(position === undefined).toBe(isJson(text))
  })
})

describe('jsonProblem', () => {
  it('names the line also where V8 names no position (an unexpected token)', () => {
    const text = '{\n  "name": "x",\n  "version": \n}\n'
    let error: unknown
    try {
      JSON.parse(text)
    } catch (caught) {
      error = caught
    }
    expect(String(error)).not.toMatch(/position/)
    expect(jsonProblem('package.json', text, error).message).toMatch(/^package\.json:4: not valid JSON \(/)
  })
})

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
