import { StringEnum } from '@mariozechner/pi-ai'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { Type } from 'typebox'

/** The custom entry type the list is saved under, one entry per change. */
export const ENTRY_TYPE = 'todo-state'

export interface Todo {
  id: number
  text: string
  done: boolean
}

export interface TodoState {
  todos: Todo[]
  nextId: number
}

export function formatTodos(todos: readonly Todo[]): string {
  if (todos.length === 0) return 'No todos.'
  return todos.map((todo) => `#${todo.id} [${todo.done ? 'x' : ' '}] ${todo.text}`).join('\n')
}

// Module state is per session: Pi evaluates an extension afresh each time it loads it for a session.
let state: TodoState = { todos: [], nextId: 1 }

/**
 * A `todo` tool (add, done, list) for the model, and `/todos` for the user. The list lives in the session:
 * every change is saved as a `todo-state` entry, and `session_start` restores the latest one, so a
 * resumed session has its list back.
 */
export default function todoState(pi: ExtensionAPI) {
  pi.on('session_start', (_event, ctx) => {
    const saved = ctx.sessionManager
      .getEntries()
      .filter((entry) => entry.type === 'custom' && entry.customType === ENTRY_TYPE)
      .at(-1)
    const data = saved?.type === 'custom' ? (saved.data as TodoState | undefined) : undefined
    state = data ? { todos: data.todos.map((todo) => ({ ...todo })), nextId: data.nextId } : { todos: [], nextId: 1 }
  })

  const save = () => pi.appendEntry<TodoState>(ENTRY_TYPE, { todos: state.todos.map((todo) => ({ ...todo })), nextId: state.nextId })

  pi.registerTool({
    name: 'todo',
    label: 'Todo',
    description: 'Keep a todo list for this session: add an item, mark one done by id, or list them all.',
    parameters: Type.Object({
      action: StringEnum(['add', 'done', 'list'] as const),
      text: Type.Optional(Type.String({ description: 'The item to add (add)' })),
      id: Type.Optional(Type.Number({ description: 'The item to mark done (done)' })),
    }),
    async execute(_toolCallId, params) {
      let text: string
      if (params.action === 'add') {
        if (!params.text?.trim()) throw new Error('add needs a text')
        const todo = { id: state.nextId++, text: params.text.trim(), done: false }
        state.todos.push(todo)
        save()
        text = `Added #${todo.id}: ${todo.text}`
      } else if (params.action === 'done') {
        const todo = state.todos.find((t) => t.id === params.id)
        if (!todo) throw new Error(`No todo #${params.id}. ${formatTodos(state.todos)}`)
        todo.done = true
        save()
        text = `Done #${todo.id}: ${todo.text}`
      } else {
        text = formatTodos(state.todos)
      }
      return { content: [{ type: 'text', text }], details: { todos: state.todos.map((todo) => ({ ...todo })) } }
    },
  })

  pi.registerCommand('todos', {
    description: 'Show the todo list',
    handler: async (_args, ctx) => {
      ctx.ui.notify(formatTodos(state.todos), 'info')
    },
  })
}
