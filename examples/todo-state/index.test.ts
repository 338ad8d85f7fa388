import { describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from 'vitest-environment-pi'

const todo = { extensions: ['./todo-state/index.ts'] }
const add = (text: string) => calls('todo', { action: 'add', text })
const done = (id: number) => calls('todo', { action: 'done', id })
const list = () => calls('todo', { action: 'list' })

/** The texts of the todo tool's results, in order. */
const results = (t: TestSession) => t.events.toolResultsFor('todo').map((r) => r.text)

describe('todo state', () => {
  it('gives the model a todo tool and the user a /todos command', async () => {
    const t = await createTestSession(todo)
    expect(t).toHaveRegisteredTool('todo')
    expect(t).toHaveRegisteredCommand('todos')
  })

  it('adds, marks done and lists within one turn', async () => {
    const t = await createTestSession(todo)
    await t.run(when('plan the release', [add('write changelog'), add('tag v1.0'), done(1), list(), says('One left.')]))
    expect(results(t)).toEqual(['Added #1: write changelog', 'Added #2: tag v1.0', 'Done #1: write changelog', '#1 [x] write changelog\n#2 [ ] tag v1.0'])
    expect(t).toHaveToolResult('todo', { details: { todos: [expect.objectContaining({ id: 1, done: true }), expect.objectContaining({ id: 2, done: false })] } })
  })

  it('keeps the list from one turn to the next', async () => {
    const t = await createTestSession(todo)
    await t.run(
      when('remember to update the docs', [add('update the docs'), says('Noted.')]),
      when('what is left?', [list(), says('Updating the docs.')]),
    )
    expect(results(t)).toEqual(['Added #1: update the docs', '#1 [ ] update the docs'])
  })

  it('saves every change as a todo-state session entry', async () => {
    const t = await createTestSession(todo)
    await t.run(when('plan', [add('a'), done(1), list(), says('ok')]))
    const saved = t.session.sessionManager.getEntries().filter((e) => e.type === 'custom' && e.customType === 'todo-state')
    expect(saved.map((e) => (e.type === 'custom' ? e.data : undefined))).toEqual([
      { todos: [{ id: 1, text: 'a', done: false }], nextId: 2 },
      { todos: [{ id: 1, text: 'a', done: true }], nextId: 2 },
    ])
  })

  it('restores the latest saved list when a session starts, and numbers on from it', async () => {
    const t = await createTestSession({
      ...todo,
      mocks: {
        session: {
          entries: [
            { type: 'custom', customType: 'todo-state', data: { todos: [{ id: 1, text: 'old', done: false }], nextId: 2 } },
            { type: 'custom', customType: 'todo-state', data: { todos: [{ id: 1, text: 'old', done: true }, { id: 2, text: 'review PR', done: false }], nextId: 3 } },
          ],
        },
      },
    })
    await t.run(when('what was I doing?', [list(), add('merge PR'), says('Reviewing the PR.')]))
    expect(results(t)).toEqual(['#1 [x] old\n#2 [ ] review PR', 'Added #3: merge PR'])
  })

  it('shows the list to the user with /todos', async () => {
    const t = await createTestSession(todo)
    await t.run(when('plan', [add('write tests'), says('ok')]))
    await t.command('todos')
    expect(t).toHaveNotified('#1 [ ] write tests', 'info')
  })

  it('says so when there is nothing to do', async () => {
    const t = await createTestSession(todo)
    await t.command('todos')
    expect(t).toHaveNotified('No todos.', 'info')
  })

  it('starts a new session with an empty list, whatever another session added', async () => {
    const first = await createTestSession(todo)
    await first.run(when('plan', [add('from the first session'), says('ok')]))
    const second = await createTestSession(todo)
    await second.run(when('what is left?', [list(), says('Nothing.')]))
    expect(results(second)).toEqual(['No todos.'])
  })

  it('tells the model when it marks an unknown item done', async () => {
    // The tool throws; Pi turns that into an error result the model reads.
    const t = await createTestSession({ ...todo, propagateErrors: false })
    await t.run(when('finish #7', [add('only one'), done(7), says('There is no #7.')]))
    expect(t).toHaveToolResult('todo', { isError: true, text: 'No todo #7. #1 [ ] only one' })
  })
})
