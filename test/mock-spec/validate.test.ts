import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  MOCK_SPEC_SCHEMA_ID,
  MockSpecError,
  loadMockSpec,
  validateMockSpec,
  type ExecMatch,
  type HttpMatch,
  type MockSpec,
  type SessionEntrySpec,
  type SessionEntryType,
} from '../../src/mocks/spec/index.js'

// Relative on purpose: error lines must repeat the path exactly as the caller gave it.
const fixture = (name: string): string =>
  relative(process.cwd(), fileURLToPath(new URL(`../fixtures/mock-specs/${name}`, import.meta.url)))

const base = { schema: 'pi.ext.mock_spec.v1', extension_id: 'permission-gate' } as const

function errorOf(run: () => unknown): MockSpecError {
  try {
    run()
  } catch (error) {
    if (error instanceof MockSpecError) return error
    throw error
  }
  throw new Error('expected a MockSpecError')
}

function messageFor(spec: unknown, options?: Parameters<typeof validateMockSpec>[1]): string {
  return errorOf(() => validateMockSpec(spec, options)).message
}

describe('validateMockSpec: valid specs', () => {
  it('ships the draft 2020-12 schema for pi.ext.mock_spec.v1', () => {
    const shipped = JSON.parse(readFileSync(new URL('../../src/mocks/spec/schema.json', import.meta.url), 'utf8'))
    expect(shipped.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
    expect(shipped.properties.schema.enum).toEqual([MOCK_SPEC_SCHEMA_ID])
  })

  it('accepts the minimal spec and returns the same object, untouched and typed', () => {
    const input = { ...base }
    const spec = validateMockSpec(input)
    expectTypeOf(spec).toEqualTypeOf<MockSpec>()
    expect(spec).toBe(input)
    expect(spec).toEqual({ schema: 'pi.ext.mock_spec.v1', extension_id: 'permission-gate' })
  })

  it('loads a file using every block of the schema', () => {
    const spec = loadMockSpec(fixture('permission-gate.json'), { extensionIds: ['permission-gate'] })
    expect(Object.keys(spec)).toEqual([
      'schema',
      'extension_id',
      'description',
      'session',
      'http',
      'exec',
      'tools',
      'ui',
      'events',
      'model',
    ])
    expect(spec.session?.accept_mutations).toBe(false)
    expect(spec.session?.messages?.[1]?.content).toEqual([
      { type: 'text', text: 'Running rm.' },
      { type: 'tool_use', name: 'bash' },
    ])
    expect(spec.http?.rules?.map((rule) => rule.response.status)).toEqual([200, 404, 204])
    expect(spec.http?.default_response?.body).toBe('offline')
    expect(spec.exec?.rules?.[0]?.match.args_contain).toEqual(['status', '--porcelain'])
    expect(spec.exec?.default_result?.code).toBe(127)
    expect(spec.tools?.invocations?.[1]?.error).toBe('blocked by permission-gate')
    expect(spec.ui?.confirm_default).toBe(false)
    expect(spec.events?.fire_sequence?.map((fire) => fire.event)).toEqual(['session_before_compact', 'tool_call', 'turn_end'])
    expect(spec.model?.thinking_level).toBe('medium')
    expect(spec.model?.available_models?.[0]?.cost).toEqual({ input: 3, output: 15 })
    expectTypeOf(spec.http?.rules?.[0]?.match).toEqualTypeOf<HttpMatch | undefined>()
    expectTypeOf(spec.exec?.rules?.[0]?.match).toEqualTypeOf<ExecMatch | undefined>()
    expectTypeOf(spec.model?.thinking_level).toEqualTypeOf<'off' | 'low' | 'medium' | 'high' | undefined>()
  })

  it('accepts the example shapes: match.url_prefix and match.cmd_exact with args_contain', () => {
    const spec = validateMockSpec({
      ...base,
      http: { rules: [{ match: { url_prefix: 'https://api.example.com/' }, response: { status: 200, body: '{}' } }] },
      exec: { rules: [{ match: { cmd_exact: 'git', args_contain: ['status'] }, result: { stdout: 'clean' } }] },
    })
    expect(spec.http?.rules?.[0]?.match.url_prefix).toBe('https://api.example.com/')
    expect(spec.exec?.rules?.[0]?.match).toEqual({ cmd_exact: 'git', args_contain: ['status'] })
  })

  it('accepts each http match key alone, and the status bounds 100 and 599', () => {
    const responses = [{ status: 100 }, { status: 599 }]
    for (const match of [
      { url_exact: 'https://x' },
      { url_prefix: 'https://x' },
      { url_pattern: '^https://x/(a|b)$' },
      { headers: { authorization: 'Bearer t' } },
      { body_contains: 'token' },
    ]) {
      for (const response of responses) {
        expect(() => validateMockSpec({ ...base, http: { rules: [{ match, response }] } })).not.toThrow()
      }
    }
  })

  it('accepts every session entry type both Pi lines write and seed, typed by its own fields', () => {
    const entries: SessionEntrySpec[] = [
      { type: 'custom', customType: 'plan', data: { step: 1 } },
      { type: 'message', message: { role: 'user', content: 'earlier', timestamp: 1 } },
      { type: 'label', targetId: 'a1b2c3d4', label: 'checkpoint' },
      { type: 'session_info', name: 'refactor' },
      { type: 'model_change', provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
      // A session file's own fields are accepted; Pi assigns its own.
      { type: 'thinking_level_change', thinkingLevel: 'high', id: 'e5f6a7b8', parentId: null, timestamp: '2026-12-01T09:50:37.000Z' },
    ]
    expect(validateMockSpec({ ...base, session: { entries, branch: entries.slice(0, 1) } }).session?.entries).toBe(entries)
    // @ts-expect-error a custom entry without its customType
    expectTypeOf<{ type: 'custom'; data: 1 }>().toMatchTypeOf<SessionEntrySpec>()
    expectTypeOf<SessionEntryType>().toEqualTypeOf<'custom' | 'message' | 'label' | 'session_info' | 'model_change' | 'thinking_level_change'>()
    expectTypeOf<NonNullable<MockSpec['session']>['entries']>().toEqualTypeOf<SessionEntrySpec[] | undefined>()
  })

  it('accepts the extension id when it is one of several', () => {
    expect(validateMockSpec(base, { extensionIds: ['plan-mode', 'permission-gate'] }).extension_id).toBe('permission-gate')
  })
})

describe('validateMockSpec: invalid specs', () => {
  it('missing schema', () => {
    expect(() => validateMockSpec({ extension_id: 'permission-gate' })).toThrowError(
      new MockSpecError('mock spec', [{ pointer: '', message: 'missing required property "schema"' }]),
    )
    expect(messageFor({ extension_id: 'permission-gate' })).toBe('mock spec: missing required property "schema"')
  })

  it('wrong schema string', () => {
    expect(messageFor({ ...base, schema: 'pi.ext.mock_spec.v2' })).toBe(
      'mock spec: /schema: must be one of "pi.ext.mock_spec.v1"',
    )
  })

  it('missing extension_id', () => {
    expect(messageFor({ schema: 'pi.ext.mock_spec.v1' })).toBe('mock spec: missing required property "extension_id"')
  })

  it('unknown top-level key, listing the allowed names', () => {
    expect(messageFor({ ...base, mocks: {} })).toBe(
      'mock spec: unknown property "mocks" (allowed: schema, extension_id, description, session, http, exec, tools, ui, events, model)',
    )
  })

  it('not an object at all', () => {
    expect(messageFor([base])).toBe('mock spec: must be object')
  })

  it('http match with none of the required keys', () => {
    const spec = { ...base, http: { rules: [{ match: { method: 'GET' }, response: { status: 200 } }] } }
    expect(messageFor(spec, { source: 'mocks/x.json' })).toBe(
      'mocks/x.json: /http/rules/0/match: must have one of url_exact, url_prefix, url_pattern, headers, body_contains',
    )
  })

  it('http match with a misspelled key says both what is missing and what is unknown', () => {
    const spec = { ...base, http: { rules: [{ match: { url: 'https://x' }, response: { status: 200 } }] } }
    expect(messageFor(spec)).toBe(
      [
        'mock spec: /http/rules/0/match: must have one of url_exact, url_prefix, url_pattern, headers, body_contains',
        'mock spec: /http/rules/0/match: unknown property "url" (allowed: method, url_exact, url_prefix, url_pattern, headers, body_contains)',
      ].join('\n'),
    )
  })

  it('bad method enum', () => {
    const spec = { ...base, http: { rules: [{ match: { method: 'get', url_exact: 'https://x' }, response: { status: 200 } }] } }
    expect(messageFor(spec)).toBe(
      'mock spec: /http/rules/0/match/method: must be one of "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"',
    )
  })

  it('status 99', () => {
    const spec = { ...base, http: { rules: [{ match: { url_exact: 'https://x' }, response: { status: 99 } }] } }
    expect(messageFor(spec)).toBe('mock spec: /http/rules/0/response/status: must be >= 100')
  })

  it('status 600 in the default response', () => {
    const spec = { ...base, http: { default_response: { status: 600 } } }
    expect(messageFor(spec)).toBe('mock spec: /http/default_response/status: must be <= 599')
  })

  it('status that is not an integer', () => {
    const spec = { ...base, http: { default_response: { status: '200' } } }
    expect(messageFor(spec)).toBe('mock spec: /http/default_response/status: must be integer')
  })

  it('times -1', () => {
    const spec = { ...base, exec: { rules: [{ match: { cmd_exact: 'ls' }, result: {}, times: -1 }] } }
    expect(messageFor(spec)).toBe('mock spec: /exec/rules/0/times: must be >= 0')
  })

  it('body together with body_json', () => {
    const spec = {
      ...base,
      http: {
        rules: [{ match: { url_exact: 'https://x' }, response: { status: 200, body: 'ok', body_json: { ok: true } } }],
        default_response: { status: 500, body: '', body_json: {} },
      },
    }
    expect(messageFor(spec)).toBe(
      [
        'mock spec: /http/rules/0/response: must not have both body and body_json',
        'mock spec: /http/default_response: must not have both body and body_json',
      ].join('\n'),
    )
  })

  it('bad url_pattern regex', () => {
    const spec = { ...base, http: { rules: [{ match: { url_pattern: 'https://x/(v1|v2' }, response: { status: 200 } }] } }
    expect(messageFor(spec)).toBe(
      'mock spec: /http/rules/0/match/url_pattern: invalid regular expression: Unterminated group',
    )
  })

  it('bad cmd_pattern regex', () => {
    const rule = { match: { cmd_exact: 'ls' }, result: {} }
    const spec = { ...base, exec: { rules: [rule, rule, { match: { cmd_pattern: '*.ts' }, result: {} }] } }
    expect(messageFor(spec)).toBe('mock spec: /exec/rules/2/match/cmd_pattern: invalid regular expression: Nothing to repeat')
  })

  it('a pattern that needs backtracking (lookahead, backreference) is refused: patterns use RE2 syntax', () => {
    const spec = {
      ...base,
      http: { rules: [{ match: { url_pattern: '^https://x/(?!admin)' }, response: { status: 200 } }] },
      exec: { rules: [{ match: { cmd_pattern: '^(\\w+) \\1$' }, result: {} }] },
    }
    expect(messageFor(spec)).toBe(
      [
        'mock spec: /http/rules/0/match/url_pattern: unsupported regular expression: invalid or unsupported Perl syntax: `(?!` ' +
          '(patterns use RE2 syntax, which matches in linear time: no lookahead, lookbehind or backreferences)',
        'mock spec: /exec/rules/0/match/cmd_pattern: unsupported regular expression: invalid escape sequence: `\\1` ' +
          '(patterns use RE2 syntax, which matches in linear time: no lookahead, lookbehind or backreferences)',
      ].join('\n'),
    )
  })

  it('accepts RE2 syntax that a JavaScript RegExp lacks, such as the inline flag (?i)', () => {
    const spec = { ...base, exec: { rules: [{ match: { cmd_pattern: '(?i)^git status' }, result: {} }] } }
    expect(validateMockSpec(spec)).toBe(spec)
  })

  it('exec match without any cmd_*', () => {
    const spec = { ...base, exec: { rules: [{ match: { args_contain: ['status'] }, result: { code: 0 } }] } }
    expect(messageFor(spec)).toBe('mock spec: /exec/rules/0/match: must have one of cmd_exact, cmd_prefix, cmd_pattern')
  })

  it('exec rule missing its result, and an unknown key in the default result', () => {
    const spec = { ...base, exec: { rules: [{ match: { cmd_prefix: 'npm' } }], default_result: { exit_code: 1 } } }
    expect(messageFor(spec)).toBe(
      [
        'mock spec: /exec/rules/0: missing required property "result"',
        'mock spec: /exec/default_result: unknown property "exit_code" (allowed: stdout, stderr, code, killed)',
      ].join('\n'),
    )
  })

  it('event name not in the enum', () => {
    const spec = { ...base, events: { fire_sequence: [{ event: 'turn_start' }, { event: 'agent_start' }] } }
    expect(messageFor(spec)).toBe(
      'mock spec: /events/fire_sequence/1/event: must be one of "tool_call", "tool_result", "turn_start", "turn_end", ' +
        '"before_agent_start", "input", "context", "resources_discover", "user_bash", "session_before_compact", "session_before_tree"',
    )
  })

  it('thinking_level not in the enum', () => {
    expect(messageFor({ ...base, model: { thinking_level: 'max' } })).toBe(
      'mock spec: /model/thinking_level: must be one of "off", "low", "medium", "high"',
    )
  })

  it('available model missing its id', () => {
    const spec = { ...base, model: { available_models: [{ provider: 'anthropic', name: 'Claude' }] } }
    expect(messageFor(spec)).toBe('mock spec: /model/available_models/0: missing required property "id"')
  })

  it('ui.confirm_default not boolean', () => {
    expect(messageFor({ ...base, ui: { confirm_default: 'yes' } })).toBe('mock spec: /ui/confirm_default: must be boolean')
  })

  it('tool invocation without a name, and a header value that is not a string', () => {
    const spec = {
      ...base,
      tools: { invocations: [{ result: {} }] },
      http: { rules: [{ match: { headers: { 'x-retry': 3 } }, response: { status: 200 } }] },
    }
    expect(messageFor(spec)).toBe(
      [
        'mock spec: /tools/invocations/0: missing required property "name"',
        'mock spec: /http/rules/0/match/headers/x-retry: must be string',
      ].join('\n'),
    )
  })

  it('session message content: one line for the branch that fits, one for a value that fits none', () => {
    const spec = {
      ...base,
      session: { messages: [{ role: 'user', content: 42 }, { role: 'assistant', content: [{ text: 'hi' }] }] },
    }
    expect(messageFor(spec)).toBe(
      [
        'mock spec: /session/messages/0/content: must be string or array',
        'mock spec: /session/messages/1/content/0: missing required property "type"',
      ].join('\n'),
    )
  })

  it('session entries: each type needs its own fields, and an unknown type or field is named', () => {
    const spec = {
      ...base,
      session: {
        entries: [
          { type: 'custom', data: { step: 1 } },
          { type: 'model_change', provider: 'anthropic' },
          { type: 'compaction', summary: 'x' },
          { type: 'custom', customType: 'plan', custom_type: 'plan' },
        ],
        branch: [{ type: 'message', message: { content: 'hi' } }, { id: 'm1' }],
      },
    }
    expect(messageFor(spec)).toBe(
      [
        'mock spec: /session/entries/0: missing required property "customType"',
        'mock spec: /session/entries/1: missing required property "modelId"',
        'mock spec: /session/entries/2: unknown property "summary"',
        'mock spec: /session/entries/2/type: must be one of "custom", "message", "label", "session_info", "model_change", "thinking_level_change"',
        'mock spec: /session/entries/3: unknown property "custom_type"',
        'mock spec: /session/branch/0/message: missing required property "role"',
        'mock spec: /session/branch/1: missing required property "type"',
      ].join('\n'),
    )
  })

  it('extension_id mismatch lists the ids under test', () => {
    expect(messageFor({ ...base, extension_id: 'foo' }, { extensionIds: ['bar'] })).toBe(
      'mock spec: /extension_id: "foo" does not match the extension under test (bar)',
    )
    expect(messageFor({ ...base, extension_id: 'foo' }, { extensionIds: ['bar', 'plan-mode'] })).toBe(
      'mock spec: /extension_id: "foo" does not match the extension under test (bar, plan-mode)',
    )
    expect(messageFor({ ...base, extension_id: 'foo' }, { extensionIds: [] })).toBe(
      'mock spec: /extension_id: "foo" does not match the extension under test (none loaded)',
    )
  })

  it('several problems at once are all listed, in document order, in one error', () => {
    const path = fixture('several-problems.json')
    const error = errorOf(() => loadMockSpec(path, { extensionIds: ['plan-mode'] }))
    expect(error.source).toBe('test/fixtures/mock-specs/several-problems.json')
    expect(error.message).toBe(
      [
        `${path}: unknown property "colour" (allowed: schema, extension_id, description, session, http, exec, tools, ui, events, model)`,
        `${path}: /schema: must be one of "pi.ext.mock_spec.v1"`,
        `${path}: /extension_id: "permission-gate" does not match the extension under test (plan-mode)`,
        `${path}: /http/rules/0/match: must have one of url_exact, url_prefix, url_pattern, headers, body_contains`,
        `${path}: /http/rules/0/match/method: must be one of "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"`,
        `${path}: /http/rules/0/response: must not have both body and body_json`,
        `${path}: /http/rules/0/response/status: must be <= 599`,
        `${path}: /http/rules/0/times: must be >= 0`,
        `${path}: /exec/rules/0/match/cmd_pattern: invalid regular expression: Range out of order in character class`,
        `${path}: /exec/rules/0/result/code: must be integer`,
        `${path}: /ui/confirm_default: must be boolean`,
      ].join('\n'),
    )
    expect(error.problems).toHaveLength(11)
    expect(error.problems[3]).toEqual({
      pointer: '/http/rules/0/match',
      message: 'must have one of url_exact, url_prefix, url_pattern, headers, body_contains',
    })
  })
})

describe('validateMockSpec: many problems', () => {
  const badRules = (count: number) => Array.from({ length: count }, () => ({ match: { method: 'GET' }, response: { status: 200 } }))
  const noKey = (index: number) => `mock spec: /http/rules/${index}/match: must have one of url_exact, url_prefix, url_pattern, headers, body_contains`

  it('lists the first 20 problems in document order and counts the rest', () => {
    const error = errorOf(() => validateMockSpec({ ...base, http: { rules: badRules(16_000) } }))
    expect(error.message).toBe([...Array.from({ length: 20 }, (_, index) => noKey(index)), 'mock spec: … and 15980 more problems'].join('\n'))
    expect(error.problems).toHaveLength(20)
    expect(error.problems[19]).toEqual({
      pointer: '/http/rules/19/match',
      message: 'must have one of url_exact, url_prefix, url_pattern, headers, body_contains',
    })
    expect(error.omitted).toBe(15_980)
  })

  it('counts a single problem past the list as one', () => {
    const error = errorOf(() => validateMockSpec({ ...base, http: { rules: badRules(21) } }, { source: 'mocks/x.json' }))
    expect(error.message.split('\n').slice(-2)).toEqual([noKey(19).replace('mock spec', 'mocks/x.json'), 'mocks/x.json: … and 1 more problem'])
    expect(error.omitted).toBe(1)
  })

  it('lists everything, with nothing omitted, up to 20 problems', () => {
    const error = errorOf(() => validateMockSpec({ ...base, http: { rules: badRules(20) } }))
    expect(error.message).toBe(Array.from({ length: 20 }, (_, index) => noKey(index)).join('\n'))
    expect(error.omitted).toBe(0)
  })
})

describe('loadMockSpec: file errors', () => {
  it('invalid JSON names the file and where it broke', () => {
    const path = fixture('trailing-comma.json')
    expect(() => loadMockSpec(path)).toThrowError(
      `${path}: invalid JSON: Expected double-quoted property name in JSON at position 74 (line 4 column 1)`,
    )
  })

  it('missing file names the path as given', () => {
    const error = errorOf(() => loadMockSpec('mocks/does-not-exist.json'))
    expect(error.message).toBe('mocks/does-not-exist.json: file not found')
    expect(error.problems).toEqual([{ pointer: '', message: 'file not found' }])
    expect(error.name).toBe('MockSpecError')
    expect(error).toBeInstanceOf(Error)
  })

  it('a directory is not a spec file', () => {
    expect(errorOf(() => loadMockSpec('test/fixtures/mock-specs')).message).toMatch(
      /^test\/fixtures\/mock-specs: cannot read file: EISDIR/,
    )
  })
})
