// The test codegen writes: one when(prompt, [...]) per user turn with calls, says and thinks as a person
// writes them, the recorded results as mocks, the confirm answers as mockUI, each call checked against the
// recording at its turn and step, and the matchers that say what happened.
import { textOf } from '../records/records.js'
import type { RecordedBlock, RecordedCall, RecordedStep, Recording } from './recording.js'
import type { Rehearsal } from './rehearse.js'
import { Code, literal, quote } from './source.js'

export interface TestPlan {
  /** The session file as the test's header names it. */
  readonly sessionFile: string
  /** The extension, relative to the project root, as createTestSession takes it. */
  readonly extension: string
  readonly flags: Record<string, string | boolean>
  readonly recording: Recording
  readonly rehearsal: Rehearsal
  /** What was not converted, and what the test answers in the user's stead. */
  readonly notes: string[]
  readonly redactions: string[]
  readonly typescript: boolean
  /** The fixture folder's name, beside the test. */
  readonly fixtureDir: string
}

export interface GeneratedTest {
  readonly text: string
  readonly fixtures: { name: string; text: string }[]
}

/** A result longer than this goes to a fixture file. */
const LONG_TEXT = { chars: 400, lines: 12 }

export function renderTest(plan: TestPlan): GeneratedTest {
  const { recording, rehearsal, typescript: ts } = plan
  const fixtures: { name: string; text: string }[] = []
  const fixtureText = (call: RecordedCall, text: string): string | Code => {
    if (text.length <= LONG_TEXT.chars && text.split('\n').length <= LONG_TEXT.lines) return text
    const base = `${call.tool}-${call.where.replace(/^turn (\d+).*?, step (\d+).*$/, 't$1s$2')}`.replace(/[^\w.-]/g, '_')
    let name = `${base}.txt`
    for (let n = 2; fixtures.some((f) => f.name === name); n++) name = `${base}-${n}.txt`
    fixtures.push({ name, text })
    return new Code(`fixture(${quote(name)})`)
  }
  const resultOf = (call: RecordedCall): unknown => {
    const { content, details, isError } = call.result
    const plain = content.length === 1 && content[0]!.type === 'text' && !isError && (details === undefined || isEmpty(details))
    if (plain) return fixtureText(call, textOf(content))
    const blocks = content.map((block) => (block.type === 'text' ? { ...block, text: fixtureText(call, block.text) } : block))
    return { content: blocks, ...(details === undefined || isEmpty(details) ? {} : { details }), ...(isError ? { isError: true } : {}) }
  }

  const calls = recording.turns.flatMap((turn) => turn.steps.flatMap((step) => (step.kind === 'abort' ? [] : step.blocks.filter((b) => b.kind === 'call').map((b) => b.call))))
  const byTool = new Map<string, RecordedCall[]>()
  for (const call of calls) byTool.set(call.tool, [...(byTool.get(call.tool) ?? []), call])
  const mockTools = [...byTool].map(([tool, recorded]) => {
    const answers = recorded.map((call) => `        [${literal(call.params, '        ')}, ${literal(resultOf(call), '        ')}],`)
    return `      ${keyOf(tool)}: recorded(${quote(tool)}, [\n${answers.join('\n')}\n      ]),`
  })

  const checkOf = (call: RecordedCall) => {
    const decision = rehearsal.decisions.get(call)
    const where = quote(call.where.replace(/ \(".*?"\)/, ''))
    return decision?.blocked ? `blocked(${where}, ${quote(decision.reason ?? '')})` : `ran(${where})`
  }
  const blockSource = (block: RecordedBlock, indent: string): string => {
    switch (block.kind) {
      case 'say':
        return `says(${quote(block.text)})`
      case 'think':
        return `thinks(${quote(block.text)})`
      case 'fail':
        return `fails(${quote(block.message)})`
      case 'call':
        return `calls(${quote(block.call.tool)}, ${literal(block.call.params, indent)}).then(${checkOf(block.call)})`
    }
  }
  const stepSource = (step: RecordedStep): string => {
    if (step.kind === 'abort') return 'aborts()'
    if (step.blocks.length === 0) return "says('')"
    if (step.blocks.length === 1 && step.blocks[0]!.kind !== 'think') return blockSource(step.blocks[0]!, '      ')
    return `responds(\n${step.blocks.map((block) => `        ${blockSource(block, '        ')},`).join('\n')}\n      )`
  }
  const turns = recording.turns.map(
    (turn) => `    when(${quote(turn.prompt)}, [\n${turn.steps.map((step) => `      ${stepSource(step)},`).join('\n')}\n    ]),`,
  )

  const confirms = rehearsal.confirms
  const mockUI = confirms.length === 0 ? undefined : confirms.every((answer) => answer === confirms[0]) ? String(confirms[0]) : `[${confirms.join(', ')}]`
  const unanswered = rehearsal.dialogs.filter((dialog) => dialog.method !== 'confirm')
  const options = [
    `    extensions: [${quote(plan.extension)}],`,
    ...(Object.keys(plan.flags).length > 0 ? [`    flags: ${literal(plan.flags, '    ')},`] : []),
    ...(mockTools.length > 0 ? ['    mockTools: {', ...mockTools, '    },'] : []),
    ...(mockUI ? [`    // The answers the user gave, in order (a session file does not hold them: codegen found them by replaying).`, `    mockUI: { confirm: ${mockUI} },`] : []),
    ...unanswered.map((dialog) => `    // ${dialog.method}(${quote(dialog.title)}) is answered as dismissed: the session file does not say what the user chose.`),
  ]

  const assertions: string[] = []
  for (const call of calls) {
    const decision = rehearsal.decisions.get(call)
    if (!decision) continue
    if (decision.blocked) assertions.push(`  expect(t).toHaveBlocked(${quote(call.tool)}, ${literal(call.params, '  ')}, ${quote(decision.reason ?? '')})`)
    else if (decision.text.length <= 200 && !decision.text.includes('\n')) {
      assertions.push(`  expect(t).toHaveToolResult(${quote(call.tool)}, { text: ${quote(decision.text)}, isError: ${decision.isError} })`)
    }
  }
  for (const title of new Set(rehearsal.dialogs.filter((d) => d.method === 'confirm').map((d) => d.title))) assertions.push(`  expect(t).toHavePrompted('confirm', ${quote(title)})`)
  const finalAnswer = recording.turns.flatMap((turn) => turn.steps.flatMap((step) => (step.kind === 'abort' ? [] : step.blocks))).filter((b) => b.kind === 'say' && b.text !== '').at(-1)
  if (finalAnswer?.kind === 'say') assertions.push(`  expect(t).toHaveSaid(${quote(finalAnswer.text)})`)

  const used = new Set(['calls', 'createTestSession', 'when'])
  const source = turns.join('\n')
  for (const name of ['says', 'thinks', 'responds', 'fails', 'aborts']) if (new RegExp(`\\b${name}\\(`).test(source)) used.add(name)
  const imports = [...used].sort()
  const typeImports = ts ? ['type MockToolHandler', 'type MockToolResult', 'type ToolCallRecord', 'type ToolResultRecord'] : []
  const header = [
    `// Generated by \`vitest-environment-pi codegen\` from ${plan.sessionFile}: the session as the model ran it, the`,
    '// recorded tool results answering the calls, and each call checked against what the extension decided then.',
    ...plan.redactions.map((line, i) => `${i === 0 ? '// Redacted: ' : '//   '}${line}`),
    ...plan.notes.map((note) => `// Note: ${note}`),
  ]
  const text = [
    ...header,
    ...(fixtures.length > 0 ? ["import { readFileSync } from 'node:fs'"] : []),
    "import { isDeepStrictEqual } from 'node:util'",
    "import { expect, it } from 'vitest'",
    `import { ${[...imports, ...typeImports].join(', ')} } from 'vitest-environment-pi'`,
    '',
    `it(${quote(`replays ${plan.sessionFile.split('/').at(-1)} as recorded`)}, async () => {`,
    '  const t = await createTestSession({',
    ...options,
    '  })',
    '  await t.run(',
    ...turns,
    '  )',
    ...assertions,
    '})',
    '',
    ...helpers(ts, fixtures.length > 0 ? plan.fixtureDir : undefined),
  ].join('\n')
  return { text, fixtures }
}

const isEmpty = (value: unknown) => typeof value === 'object' && value !== null && Object.keys(value).length === 0
const keyOf = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : quote(name))

/** The helpers the generated test defines for itself, so that it reads without the generator. */
function helpers(ts: boolean, fixtureDir: string | undefined): string[] {
  const t = (annotation: string) => (ts ? annotation : '')
  return [
    '/** Answers each call with the result the recording has for the same params, each result once. */',
    `function recorded(tool${t(': string')}, answers${t(': [params: Record<string, unknown>, result: string | MockToolResult][]')})${t(': MockToolHandler')} {`,
    '  const left = [...answers]',
    '  return (params) => {',
    '    const at = left.findIndex(([recordedParams]) => isDeepStrictEqual(recordedParams, params))',
    '    if (at < 0) throw new Error(`${tool}(${JSON.stringify(params)}) is not a call of the recording: mock it yourself, or leave it out to run it`)',
    `    return left.splice(at, 1)[0]${t('!')}[1]`,
    '  }',
    '}',
    '',
    '/** Fails the step unless the extension lets the call run, as it did in the recording. */',
    `function ran(where${t(': string')}) {`,
    `  return (result${t(': ToolResultRecord')}, call${t(': ToolCallRecord | undefined')}) => {`,
    '    if (call?.blocked) {',
    '      throw new Error(`${where}: the recording ran ${result.toolName}(${JSON.stringify(call.input)}), the extension now blocks it: ${JSON.stringify(call.blockReason)}`)',
    '    }',
    '  }',
    '}',
    '',
    '/** Fails the step unless the extension blocks the call with the reason it gave in the recording. */',
    `function blocked(where${t(': string')}, reason${t(': string')}) {`,
    `  return (result${t(': ToolResultRecord')}, call${t(': ToolCallRecord | undefined')}) => {`,
    '    if (!call?.blocked) {',
    '      throw new Error(`${where}: the recording blocked ${result.toolName} (${JSON.stringify(reason)}), the extension now lets it run; it returned ${JSON.stringify(result.text)}`)',
    '    }',
    '    if (call.blockReason !== reason) {',
    '      throw new Error(`${where}: the extension now blocks ${result.toolName} with ${JSON.stringify(call.blockReason)}, the recording with ${JSON.stringify(reason)}`)',
    '    }',
    '  }',
    '}',
    ...(fixtureDir
      ? ['', '/** A long recorded result, kept in a file beside the test. */', `function fixture(name${t(': string')}) {`, `  return readFileSync(new URL(\`./${fixtureDir}/\${name}\`, import.meta.url), 'utf8')`, '}']
      : []),
    '',
  ]
}
