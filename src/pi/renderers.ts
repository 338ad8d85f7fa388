// What Pi's interactive mode draws with an extension's own renderers: a custom message whose customType has
// a message renderer (Pi's CustomMessageComponent), and a tool whose definition has renderCall/renderResult
// (Pi's ToolExecutionComponent), drawn by those components on a terminal in memory, collapsed as Pi shows
// them first and expanded as after Ctrl+O. Pi swallows a renderer's error and draws its default instead;
// here the error is told, naming the renderer and its extension.
import type { AgentSession, ToolDefinition } from '#pi/coding-agent'
import type { Component } from '@mariozechner/pi-tui'
import { messageOf, thrownAt } from '../shared/errors.js'
import { adapter, currentTheme } from './running-line.js'
import { screenNow } from './tui.js'

const COLUMNS = 80

/** One message or tool call as Pi's TUI draws it, styles removed. */
export interface Drawing {
  kind: 'message' | 'tool'
  /** The message's customType, or the tool's name. */
  name: string
  /** The extension whose renderer drew it. */
  extensionPath: string
  toolCallId?: string
  /** As Pi shows it first (tools collapsed). */
  lines: string[]
  /** As Pi shows it with tool output expanded (Ctrl+O). */
  expandedLines: string[]
  /** What went wrong: the renderer threw (Pi drew its default instead), or drew wider than the terminal. */
  error?: string
}

type CustomMessage = ConstructorParameters<typeof adapter.exports.CustomMessageComponent>[0]
type ToolResult = Parameters<InstanceType<typeof adapter.exports.ToolExecutionComponent>['updateResult']>[0]

/** Draws every displayed custom message with a renderer and every call of a tool with renderers, as they end. */
export function watchRenders(session: AgentSession, onDrawing: (drawing: Drawing) => void): void {
  const argsOf = new Map<string, unknown>()
  session.subscribe((event) => {
    if (event.type === 'message_end') {
      const message = event.message as Partial<CustomMessage> & { role: string }
      if (message.role !== 'custom' || !message.display || !message.customType) return
      const drawing = drawMessage(session, message as CustomMessage)
      if (drawing) onDrawing(drawing)
    } else if (event.type === 'tool_execution_start') {
      argsOf.set(event.toolCallId, event.args)
    } else if (event.type === 'tool_execution_end') {
      const args = argsOf.get(event.toolCallId)
      argsOf.delete(event.toolCallId)
      const result = { ...(event.result as Omit<ToolResult, 'isError'>), isError: event.isError }
      const drawing = drawTool(session, { toolName: event.toolName, toolCallId: event.toolCallId, args, result })
      if (drawing) onDrawing(drawing)
    }
  })
}

function drawMessage(session: AgentSession, message: CustomMessage): Drawing | undefined {
  const renderer = session.extensionRunner.getMessageRenderer(message.customType)
  if (!renderer) return undefined
  const extensionPath = session.resourceLoader.getExtensions().extensions.find((e) => e.messageRenderers.has(message.customType))?.path ?? '(unknown extension)'
  const watch = watchThrows(`the message renderer of "${message.customType}"`)
  return draw({ kind: 'message', name: message.customType, extensionPath }, watch, () => new adapter.exports.CustomMessageComponent(message, watch.wrap(renderer)))
}

function drawTool(session: AgentSession, call: { toolName: string; toolCallId: string; args: unknown; result: ToolResult }): Drawing | undefined {
  const registered = session.extensionRunner.getAllRegisteredTools().find((tool) => tool.definition.name === call.toolName)
  const definition = registered?.definition
  if (!definition || (!definition.renderCall && !definition.renderResult)) return undefined
  const watch = watchThrows(`tool "${call.toolName}"'s renderers`)
  const drawn: ToolDefinition = {
    ...definition,
    ...(definition.renderCall ? { renderCall: watch.wrap(definition.renderCall, `tool "${call.toolName}"'s renderCall`) } : {}),
    ...(definition.renderResult ? { renderResult: watch.wrap(definition.renderResult, `tool "${call.toolName}"'s renderResult`) } : {}),
  }
  return draw({ kind: 'tool', name: call.toolName, extensionPath: registered.sourceInfo.path, toolCallId: call.toolCallId }, watch, (tui) => {
    const component = new adapter.exports.ToolExecutionComponent(call.toolName, call.toolCallId, call.args, { showImages: false }, drawn, tui as never, session.sessionManager.getCwd())
    // As the interactive mode takes a call through: its arguments complete, started, then its result.
    component.setArgsComplete()
    component.markExecutionStarted()
    component.updateResult(call.result)
    return component
  })
}

/** Builds the component on a fresh screen, reads it collapsed then expanded; undefined when Pi's TUI is not loaded. */
function draw(
  about: Pick<Drawing, 'kind' | 'name' | 'extensionPath' | 'toolCallId'>,
  watch: ThrowWatch,
  build: (tui: unknown) => Component & { setExpanded(expanded: boolean): void },
): Drawing | undefined {
  currentTheme()
  const screen = screenNow({ columns: COLUMNS, rows: 24 })
  if (!screen) return undefined
  const errors: string[] = []
  try {
    const component = build(screen.tui)
    screen.mount(component)
    const read = (): string[] => {
      const frame = screen.frame()
      if (frame.tooWide) {
        errors.push(
          `${watch.owner}: line ${frame.tooWide.index + 1} it drew is ${frame.tooWide.width} columns wide, wider than the terminal's ${COLUMNS}; Pi's TUI stops on it ("Rendered line exceeds terminal width"). Cut lines with truncateToWidth() from pi-tui`,
        )
      }
      return frame.lines
    }
    const lines = read()
    component.setExpanded(true)
    const expandedLines = read()
    if (watch.thrown) errors.unshift(watch.thrown)
    return { ...about, lines, expandedLines, ...(errors.length > 0 ? { error: [...new Set(errors)].join('; ') } : {}) }
  } finally {
    screen.close()
  }
}

interface ThrowWatch {
  /** Whose renderers: `the message renderer of "x"`, `tool "x"'s`. */
  owner: string
  /** The first error a wrapped renderer threw, as a sentence. */
  thrown: string | undefined
  wrap<F extends (...args: never[]) => unknown>(renderer: F, name?: string): F
}

/** Wraps renderers so that what they throw is remembered, then thrown on to Pi, which falls back as it does. */
function watchThrows(owner: string): ThrowWatch {
  const watch: ThrowWatch = {
    owner,
    thrown: undefined,
    wrap: (renderer, name = owner) =>
      ((...args: never[]) => {
        try {
          return renderer(...args)
        } catch (error) {
          watch.thrown ??= `${name} threw: ${messageOf(error)}${thrownAt(error)}; Pi draws its default instead`
          throw error
        }
      }) as typeof renderer,
  }
  return watch
}
