// The example extensions that ship with Pi, tested as shipped: each test is what a user of the
// extension relies on, driven through a real Pi session with a scripted model.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from '../src/index.js'

// Pi 0.73's examples (a dev dependency), run on whichever line runs: the same extension files on both.
const EXAMPLES = 'node_modules/@mariozechner/pi-coding-agent/examples/extensions'
const PERMISSION_GATE = `${EXAMPLES}/permission-gate.ts`
const PROTECTED_PATHS = `${EXAMPLES}/protected-paths.ts`
const HELLO = `${EXAMPLES}/hello.ts`
const TODO = `${EXAMPLES}/todo.ts`
const PLAN_MODE = `${EXAMPLES}/plan-mode/index.ts`

const plain = (text: unknown) => String(text).replace(/\x1b\[[0-9;]*m/g, '')

let t: TestSession | undefined
afterEach(async () => {
  await t?.dispose()
  t = undefined
})

describe('permission-gate.ts', () => {
  it('runs a dangerous command once the user answers Yes', async () => {
    t = await createTestSession({
      extensions: [PERMISSION_GATE],
      mockTools: { bash: 'removed build/' },
      mockUI: { select: 'Yes' },
    })
    await t.run(when('clean the build', [calls('bash', { command: 'rm -rf build' }), says('Cleaned.')]))

    expect(t.events.uiCallsFor('select')).toEqual([
      { method: 'select', args: ['⚠️ Dangerous command:\n\n  rm -rf build\n\nAllow?', ['Yes', 'No']], returnValue: 'Yes' },
    ])
    expect(t.events.toolCallsFor('bash')).toMatchObject([{ input: { command: 'rm -rf build' }, blocked: false }])
    expect(t.events.toolResultsFor('bash')).toMatchObject([{ text: 'removed build/', isError: false, mocked: true }])
  })

  it('blocks a dangerous command when the user answers No, before bash runs', async () => {
    const ran: unknown[] = []
    t = await createTestSession({
      extensions: [PERMISSION_GATE],
      mockTools: { bash: (params) => (ran.push(params.command), 'removed build/') },
      mockUI: { select: 'No' },
    })
    await t.run(when('clean the build', [calls('bash', { command: 'rm -rf build' }), says('I was not allowed to.')]))

    expect(t.events.blockedCalls()).toMatchObject([{ toolName: 'bash', blocked: true, blockReason: 'Blocked by user' }])
    expect(t.events.toolResultsFor('bash')).toMatchObject([{ text: 'Blocked by user', isError: true, mocked: false }])
    expect(t.events.uiCallsFor('select').map((call) => call.returnValue)).toEqual(['No'])
    expect(ran).toEqual([])
  })

  it('blocks a dangerous command without asking when there is no UI', async () => {
    t = await createTestSession({ extensions: [PERMISSION_GATE], mockTools: { bash: 'removed build/' }, mockUI: false })
    await t.run(when('clean the build', [calls('bash', { command: 'sudo rm -rf build' }), says('Blocked.')]))

    expect(t.events.blockedCalls()).toMatchObject([
      { toolName: 'bash', blockReason: 'Dangerous command blocked (no UI for confirmation)' },
    ])
    expect(t.events.uiCallsFor('select')).toEqual([])
  })

  it('never asks about a safe command', async () => {
    // strict: an unscripted dialog would fail the run.
    t = await createTestSession({ extensions: [PERMISSION_GATE], mockTools: { bash: 'a.txt' }, mockUI: { strict: true } })
    await t.run(when('what is here?', [calls('bash', { command: 'ls -la' }), says('One file.')]))

    expect(t.events.uiCallsFor('select')).toEqual([])
    expect(t.events.toolCallsFor('bash')).toMatchObject([{ blocked: false }])
    expect(t.events.toolResultsFor('bash')).toMatchObject([{ text: 'a.txt', isError: false }])
  })
})

describe('protected-paths.ts', () => {
  it('blocks write and edit to .env and warns the user', async () => {
    // The real write tool: if the gate let it through, .env would exist afterwards.
    t = await createTestSession({ extensions: [PROTECTED_PATHS] })
    await t.run(
      when('store the key', [
        calls('write', { path: '.env', content: 'KEY=1' }),
        calls('edit', { path: '.env', edits: [{ oldText: 'KEY=1', newText: 'KEY=2' }] }),
        says('That file is protected.'),
      ]),
    )

    expect(t.events.blockedCalls()).toMatchObject([
      { toolName: 'write', blockReason: 'Path ".env" is protected' },
      { toolName: 'edit', blockReason: 'Path ".env" is protected' },
    ])
    expect(t.events.uiCallsFor('notify').map((call) => call.args)).toEqual([
      ['Blocked write to protected path: .env', 'warning'],
      ['Blocked write to protected path: .env', 'warning'],
    ])
    expect(existsSync(join(t.cwd, '.env'))).toBe(false)
  })

  it('blocks without notifying when there is no UI', async () => {
    t = await createTestSession({ extensions: [PROTECTED_PATHS], mockUI: false })
    await t.run(when('store the key', [calls('write', { path: 'config/.env', content: 'KEY=1' }), says('Protected.')]))

    expect(t.events.blockedCalls()).toMatchObject([{ toolName: 'write', blockReason: 'Path "config/.env" is protected' }])
    expect(t.events.uiCallsFor('notify')).toEqual([])
  })

  it('lets write and edit through to other paths', async () => {
    t = await createTestSession({
      extensions: [PROTECTED_PATHS],
      mockTools: { write: (params) => `wrote ${params.path}`, edit: (params) => `edited ${params.path}` },
    })
    await t.run(
      when('update the app', [
        calls('write', { path: 'src/app.ts', content: 'export {}' }),
        calls('edit', { path: 'src/app.ts', edits: [{ oldText: 'export {}', newText: 'export const x = 1' }] }),
        says('Updated.'),
      ]),
    )

    expect(t.events.blockedCalls()).toEqual([])
    expect(t.events.toolResults.map((r) => [r.toolName, r.text, r.isError])).toEqual([
      ['write', 'wrote src/app.ts', false],
      ['edit', 'edited src/app.ts', false],
    ])
    expect(t.events.uiCallsFor('notify')).toEqual([])
  })
})

describe('hello.ts', () => {
  it('greets by name with its real execute', async () => {
    t = await createTestSession({ extensions: [HELLO] })
    await t.run(when('say hello to Ada', [calls('hello', { name: 'Ada' }), says('I greeted Ada.')]))

    expect(t.events.toolResultsFor('hello')).toMatchObject([
      { text: 'Hello, Ada!', details: { greeted: 'Ada' }, isError: false, mocked: false },
    ])
    expect(t.session.getActiveToolNames()).toContain('hello')
  })
})

describe('todo.ts', () => {
  it('adds, toggles and lists todos', async () => {
    t = await createTestSession({ extensions: [TODO] })
    await t.run(
      when('plan my day', [
        calls('todo', { action: 'add', text: 'Buy milk' }),
        calls('todo', { action: 'add', text: 'Write tests' }),
        calls('todo', { action: 'toggle', id: 1 }),
        calls('todo', { action: 'toggle', id: 99 }),
        calls('todo', { action: 'list' }),
        says('Two todos, one done.'),
      ]),
    )

    const results = t.events.toolResultsFor('todo')
    expect(results.map((r) => [r.text, r.isError, r.mocked])).toEqual([
      ['Added todo #1: Buy milk', false, false],
      ['Added todo #2: Write tests', false, false],
      ['Todo #1 completed', false, false],
      ['Todo #99 not found', false, false],
      ['[x] #1: Buy milk\n[ ] #2: Write tests', false, false],
    ])
    expect(results[3]!.details).toMatchObject({ action: 'toggle', error: '#99 not found' })
    expect(results[4]!.details).toEqual({
      action: 'list',
      todos: [
        { id: 1, text: 'Buy milk', done: true },
        { id: 2, text: 'Write tests', done: false },
      ],
      nextId: 3,
    })
  })

  it('/todos opens a custom component that lists the todos and closes on Escape', async () => {
    type TodoComponent = { render(width: number): string[]; handleInput(data: string): void }
    type Factory = (tui: unknown, theme: unknown, keybindings: unknown, done: (value?: unknown) => void) => TodoComponent
    const plainTheme = { fg: (_color: string, text: string) => text }
    let lines: string[] = []
    t = await createTestSession({
      extensions: [TODO],
      mockUI: {
        // Build the component as Pi's TUI would, render it, then press Escape.
        custom: (factory: Factory) =>
          new Promise((resolve) => {
            const component = factory({}, plainTheme, {}, resolve)
            lines = component.render(60)
            component.handleInput('\x1b')
          }),
      },
    })
    await t.run(when('plan my day', [calls('todo', { action: 'add', text: 'Buy milk' }), says('Added.')]))
    await t.command('todos')

    expect(t.events.uiCallsFor('custom')).toHaveLength(1)
    expect(lines.map((line) => line.trim()).filter(Boolean)).toEqual([
      expect.stringContaining('Todos'),
      '0/1 completed',
      '○ #1 Buy milk',
      'Press Escape to close',
    ])
  })

  it('/todos only reports an error without a UI', async () => {
    t = await createTestSession({ extensions: [TODO], mockUI: false })
    await t.command('todos')

    expect(t.events.uiCallsFor('notify').map((call) => call.args)).toEqual([['/todos requires interactive mode', 'error']])
    expect(t.events.uiCallsFor('custom')).toEqual([])
  })
})

describe('plan-mode/index.ts', () => {
  const NORMAL_TOOLS = ['read', 'bash', 'edit', 'write']
  // The extension asks for "questionnaire" too; no such tool is registered, so Pi leaves it out.
  const PLAN_TOOLS = ['read', 'bash', 'grep', 'find', 'ls']
  const planStatus = (session: TestSession) =>
    session.events.uiCallsFor('setStatus').filter((call) => call.args[0] === 'plan-mode').map((call) => call.args[1] && plain(call.args[1]))

  it('/plan toggles read-only tools, with a notification and a footer status', async () => {
    t = await createTestSession({ extensions: [PLAN_MODE] })
    expect(t.session.getActiveToolNames()).toEqual(NORMAL_TOOLS)

    await t.command('plan')
    expect(t.session.getActiveToolNames()).toEqual(PLAN_TOOLS)
    expect(t.events.uiCallsFor('notify').at(-1)?.args).toEqual([
      'Plan mode enabled. Tools: read, bash, grep, find, ls, questionnaire',
      'info',
    ])
    expect(planStatus(t).at(-1)).toBe('⏸ plan')

    await t.command('plan')
    expect(t.session.getActiveToolNames()).toEqual(NORMAL_TOOLS)
    expect(t.events.uiCallsFor('notify').at(-1)?.args).toEqual(['Plan mode disabled. Full access restored.', 'info'])
    expect(planStatus(t).at(-1)).toBeUndefined()
  })

  it('in plan mode, blocks non-allowlisted bash, hides write, and asks what next', async () => {
    t = await createTestSession({
      extensions: [PLAN_MODE],
      mockTools: { bash: (params) => `ran ${params.command}` },
      mockUI: { select: 'Stay in plan mode' },
    })
    await t.command('plan')
    await t.run(
      when('clean up the repo', [
        calls('bash', { command: 'rm -rf x' }),
        calls('bash', { command: 'ls' }),
        calls('write', { path: 'notes.md', content: 'todo' }),
        says('I would remove x.'),
      ]),
    )

    // The model was only offered the read-only tools, with plan-mode instructions.
    expect(t.events.modelRequests[0]!.tools).toEqual(PLAN_TOOLS)
    expect(t.events.messages).toContainEqual(expect.objectContaining({ role: 'custom', customType: 'plan-mode-context' }))

    expect(t.events.blockedCalls()).toMatchObject([
      {
        toolName: 'bash',
        input: { command: 'rm -rf x' },
        blockReason: 'Plan mode: command blocked (not allowlisted). Use /plan to disable plan mode first.\nCommand: rm -rf x',
      },
    ])
    expect(t.events.toolResultsFor('bash')[1]).toMatchObject({ text: 'ran ls', isError: false, mocked: true })
    // write is not an active tool: Pi answers "not found" itself, no extension blocked it.
    expect(t.events.toolCallsFor('write')).toMatchObject([{ blocked: false }])
    expect(t.events.toolResultsFor('write')).toMatchObject([{ text: 'Tool write not found', isError: true, mocked: false }])
    expect(existsSync(join(t.cwd, 'notes.md'))).toBe(false)

    expect(t.events.uiCallsFor('select')).toEqual([
      {
        method: 'select',
        args: ['Plan mode - what next?', ['Execute the plan', 'Stay in plan mode', 'Refine the plan']],
        returnValue: 'Stay in plan mode',
      },
    ])
    expect(t.session.getActiveToolNames()).toEqual(PLAN_TOOLS)

    await t.command('plan')
    expect(t.session.getActiveToolNames()).toEqual(NORMAL_TOOLS)
  })

  // The turn "Execute the plan" triggers is scripted in the same when(...): Pi asks the model again
  // within the same run().
  const executePlan = [
    says('Plan:\n1. Update the config file\n2. Run the test suite'),
    calls('bash', { command: 'npm test' }),
    says('Done. [DONE:1] [DONE:2]'),
  ]

  it('"Execute the plan" restores full tools and starts the execution turn', async () => {
    t = await createTestSession({
      extensions: [PLAN_MODE],
      mockTools: { bash: (params) => `ran ${params.command}` },
      mockUI: { select: 'Execute the plan (track progress)' },
    })
    await t.command('plan')
    await t.run(when('refactor the config', executePlan))

    expect(t.events.uiCallsFor('select')).toMatchObject([
      {
        args: ['Plan mode - what next?', ['Execute the plan (track progress)', 'Stay in plan mode', 'Refine the plan']],
        returnValue: 'Execute the plan (track progress)',
      },
    ])
    expect(t.events.messages).toContainEqual(
      expect.objectContaining({ role: 'custom', customType: 'plan-mode-execute', content: 'Execute the plan. Start with: Config file' }),
    )
    // The execution turn had the full tool set again, and bash was no longer restricted.
    expect(t.events.modelRequests[1]!.tools).toEqual(NORMAL_TOOLS)
    expect(t.events.toolResultsFor('bash')).toMatchObject([{ text: 'ran npm test', isError: false }])
    expect(t.events.blockedCalls()).toEqual([])
    expect(t.session.getActiveToolNames()).toEqual(NORMAL_TOOLS)
    // Progress in the footer: 0/2 when execution starts, then cleared when every step is done.
    expect(planStatus(t)).toEqual([undefined, '⏸ plan', '📋 0/2', '📋 2/2', undefined])
    expect(t.playbook.remaining).toBe(0)
  })
})
