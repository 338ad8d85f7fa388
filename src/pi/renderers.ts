// What Pi's interactive mode draws of a session, with Pi's own components on a terminal in memory: a custom
// message whose customType has a message renderer (CustomMessageComponent), every tool call
// (ToolExecutionComponent, with the tool's own renderers, an extension's `registerToolRenderer` resolver's,
// Pi's built-in ones, or Pi's default box), its partial results as they come (`onUpdate`), and a custom entry with an entry
// renderer (1.x's CustomEntryComponent). Each is read collapsed as Pi shows it first and expanded as after
// Ctrl+O. Pi swallows a renderer's error and draws its default instead; here the error is told, naming the
// renderer and its extension.
import type { AgentSession, ToolDefinition } from '#pi/coding-agent'
import type { Component } from '@mariozechner/pi-tui'
import { messageOf, thrownAt } from '../shared/errors.js'
import type { CustomEntry, EntryRenderer } from './adapter.js'
import { adapter, BUILTIN_TOOL_NAMES, currentTheme } from './running-line.js'
import { screenNow, type ComponentScreen } from './tui.js'

const COLUMNS = 80

/** One message, tool call or entry as Pi's TUI draws it, styles removed. */
export interface Drawing {
  kind: 'message' | 'tool' | 'entry'
  /** The message's or entry's customType, or the tool's name. */
  name: string
  /** The extension whose renderer drew it; `builtin:<tool>` for Pi's own renderers of a built-in tool. */
  extensionPath: string
  toolCallId?: string
  /** A tool's partial result (what its `execute` sent to `onUpdate`), as Pi shows it while the tool runs. */
  partial?: true
  /** As Pi shows it first (tools collapsed). */
  lines: string[]
  /** As Pi shows it with tool output expanded (Ctrl+O). */
  expandedLines: string[]
  /** What went wrong: the renderer threw (Pi drew its default instead), or drew wider than the terminal. */
  error?: string
}

type CustomMessage = ConstructorParameters<typeof adapter.exports.CustomMessageComponent>[0]
type ToolResult = Parameters<InstanceType<typeof adapter.exports.ToolExecutionComponent>['updateResult']>[0]
type ToolComponent = InstanceType<typeof adapter.exports.ToolExecutionComponent>
/** What a tool call is drawn with (1.x's `ToolRenderers`): a definition, or the renderers alone. */
type ToolRenderers = Partial<Pick<ToolDefinition, 'renderCall' | 'renderResult'>>
/** 1.x's `pi.registerToolRenderer` resolver: chooses a tool's renderers, `next()` being what the rest would use. */
type ToolRendererResolver = (toolName: string, next: () => ToolRenderers | undefined) => ToolRenderers | undefined
/** An extension as the resource loader holds it, with what 1.x adds for drawing. */
interface DrawingExtension {
  path: string
  messageRenderers: Map<string, unknown>
  toolRenderers?: ToolRendererResolver[]
  entryRenderers?: Map<string, EntryRenderer>
}
type EntryEvent = { type: 'entry_appended'; entry: CustomEntry | { type: string } }
type ToolStart = { toolCallId: string; toolName: string; args: unknown; parentToolCallId?: string }

/** Draws what Pi's interactive mode draws of `session` as it happens: messages, tool calls and their partial results, entries. */
export function watchRenders(session: AgentSession, onDrawing: (drawing: Drawing) => void): void {
  const running = new Map<string, ToolCanvas>()
  const told = (drawing: Drawing | undefined) => drawing && onDrawing(drawing)
  session.subscribe((event) => {
    if (event.type === 'message_end') {
      const message = event.message as Partial<CustomMessage> & { role: string }
      if (message.role === 'custom' && message.display && message.customType) told(drawMessage(session, message as CustomMessage))
    } else if (event.type === 'tool_execution_start') {
      // Nested calls (a code-mode script's) are drawn inside their parent's row, as Pi does.
      const start = event as ToolStart
      if (start.parentToolCallId) return
      const canvas = openTool(session, start)
      if (canvas) running.set(event.toolCallId, canvas)
    } else if (event.type === 'tool_execution_update') {
      const canvas = running.get(event.toolCallId)
      if (!canvas) return
      canvas.component.updateResult({ ...(event.partialResult as Omit<ToolResult, 'isError'>), isError: false }, true)
      told(canvas.read(true))
    } else if (event.type === 'tool_execution_end') {
      const canvas = running.get(event.toolCallId)
      if (!canvas) return
      running.delete(event.toolCallId)
      const durationMs = (event as { durationMs?: number }).durationMs
      canvas.component.updateResult({ ...(event.result as Omit<ToolResult, 'isError'>), isError: event.isError, ...(durationMs === undefined ? {} : { durationMs }) })
      told(canvas.read(false))
      canvas.close()
    } else if (event.type === 'agent_end') {
      // A call that never ended: a final result stops the clock its renderer may run (Pi's bash row), unrecorded.
      for (const canvas of running.values()) {
        canvas.component.updateResult({ content: [], isError: true })
        canvas.close()
      }
      running.clear()
    } else if ((event as { type: string }).type === 'entry_appended') {
      const { entry } = event as unknown as EntryEvent
      if (entry.type === 'custom') told(drawEntry(session, entry as CustomEntry))
    }
  })
}

const extensionsOf = (session: AgentSession) => session.resourceLoader.getExtensions().extensions as unknown as DrawingExtension[]

function drawMessage(session: AgentSession, message: CustomMessage): Drawing | undefined {
  const renderer = session.extensionRunner.getMessageRenderer(message.customType)
  if (!renderer) return undefined
  const extensionPath = extensionsOf(session).find((e) => e.messageRenderers.has(message.customType))?.path ?? '(unknown extension)'
  const watch = watchThrows(`the message renderer of "${message.customType}"`)
  const canvas = openCanvas({ kind: 'message', name: message.customType, extensionPath }, watch, () => new adapter.exports.CustomMessageComponent(message, watch.wrap(renderer)))
  return canvas && readOnce(canvas)
}

/** A custom entry as Pi's interactive mode shows it when it is appended (1.x): nothing when its renderer returns nothing. */
function drawEntry(session: AgentSession, entry: CustomEntry): Drawing | undefined {
  const EntryComponent = adapter.CustomEntryComponent
  const runner = session.extensionRunner as unknown as { getEntryRenderer?: (customType: string) => EntryRenderer | undefined }
  const renderer = runner.getEntryRenderer?.(entry.customType)
  if (!EntryComponent || !renderer) return undefined
  const extensionPath = extensionsOf(session).find((e) => e.entryRenderers?.has(entry.customType))?.path ?? '(unknown extension)'
  const watch = watchThrows(`the entry renderer of "${entry.customType}"`)
  let empty = false
  const canvas = openCanvas({ kind: 'entry', name: entry.customType, extensionPath }, watch, () => {
    const component = new EntryComponent(entry, watch.wrap(renderer))
    empty = !component.hasContent()
    return component
  })
  if (!canvas) return undefined
  if (!empty) return readOnce(canvas)
  canvas.close()
  return undefined
}

/**
 * The renderers Pi's interactive mode draws a call of `toolName` with, and whose they are: the extensions'
 * resolvers in load order (1.x), each given `next()`, then the tool's own definition, with Pi's built-in
 * renderers where it has none. A resolver that throws is told and passed over.
 */
function toolRenderers(session: AgentSession, toolName: string, problems: string[]): { renderers: ToolRenderers | undefined; owner: string } {
  const registered = session.extensionRunner.getAllRegisteredTools().find((tool) => tool.definition.name === toolName)
  const base = () => ({
    renderers: adapter.withBuiltInRenderers(toolName, session.getToolDefinition(toolName)) as ToolRenderers | undefined,
    owner: registered?.sourceInfo.path ?? (BUILTIN_TOOL_NAMES.includes(toolName) ? `builtin:${toolName}` : '(no extension: the tool is not registered)'),
  })
  const resolvers = extensionsOf(session).flatMap((extension) => (extension.toolRenderers ?? []).map((resolve) => ({ resolve, owner: extension.path })))
  const resolveFrom = (index: number): { renderers: ToolRenderers | undefined; owner: string } => {
    if (index >= resolvers.length) return base()
    const { resolve, owner } = resolvers[index]!
    let next: { renderers: ToolRenderers | undefined; owner: string } | undefined
    const nextRenderers = () => (next ??= resolveFrom(index + 1)).renderers
    try {
      const renderers = resolve(toolName, nextRenderers)
      // What the resolver handed on from next() stays whose it was; anything else is its own.
      return next && renderers === next.renderers ? next : { renderers, owner }
    } catch (error) {
      problems.push(`the tool renderer resolver of ${owner} threw for tool "${toolName}": ${messageOf(error)}${thrownAt(error)}`)
      return next ?? resolveFrom(index + 1)
    }
  }
  return resolveFrom(0)
}

/** A tool call on screen from its start, as Pi's interactive mode takes it through (a tool without renderers in Pi's default box). */
function openTool(session: AgentSession, call: ToolStart): ToolCanvas | undefined {
  const resolverProblems: string[] = []
  const { renderers, owner } = toolRenderers(session, call.toolName, resolverProblems)
  const watch = watchThrows(`tool "${call.toolName}"'s renderers`)
  watch.problems.push(...resolverProblems)
  const drawn = renderers && ({
    ...renderers,
    ...(renderers.renderCall ? { renderCall: watch.wrap(renderers.renderCall, `tool "${call.toolName}"'s renderCall`) } : {}),
    ...(renderers.renderResult ? { renderResult: watch.wrap(renderers.renderResult, `tool "${call.toolName}"'s renderResult`) } : {}),
  } as ToolDefinition)
  const canvas = openCanvas({ kind: 'tool', name: call.toolName, extensionPath: owner, toolCallId: call.toolCallId }, watch, (tui) => {
    const component = new adapter.exports.ToolExecutionComponent(call.toolName, call.toolCallId, call.args, { showImages: false }, drawn, tui as never, session.sessionManager.getCwd())
    // As the interactive mode takes a call through: its arguments complete, then started.
    component.setArgsComplete()
    component.markExecutionStarted()
    return component
  })
  return canvas as ToolCanvas | undefined
}

interface Canvas<C extends DrawnComponent = DrawnComponent> {
  component: C
  /** What the component shows now, collapsed then expanded; `partial` marks a tool's partial result. */
  read(partial: boolean): Drawing
  close(): void
}
type DrawnComponent = Component & { setExpanded(expanded: boolean): void }
type ToolCanvas = Canvas<ToolComponent>

const readOnce = (canvas: Canvas): Drawing => {
  try {
    return canvas.read(false)
  } finally {
    canvas.close()
  }
}

/** Builds the component on a fresh screen; undefined when Pi's TUI is not loaded. */
function openCanvas<C extends DrawnComponent>(
  about: Pick<Drawing, 'kind' | 'name' | 'extensionPath' | 'toolCallId'>,
  watch: ThrowWatch,
  build: (tui: unknown) => C,
): Canvas<C> | undefined {
  currentTheme()
  const screen: ComponentScreen | undefined = screenNow({ columns: COLUMNS, rows: 24 })
  if (!screen) return undefined
  let component: C
  try {
    component = build(screen.tui)
    screen.mount(component)
  } catch (error) {
    screen.close()
    throw error
  }
  // Each problem is told once, with the first drawing that shows it.
  const told = new Set<string>()
  return {
    component,
    read(partial) {
      const frame = () => {
        let shown: ReturnType<ComponentScreen['frame']>
        try {
          shown = screen.frame()
        } catch (error) {
          watch.problems.push(`${watch.owner}: the component it returned threw in render(): ${messageOf(error)}${thrownAt(error)}; Pi's TUI stops on it`)
          return []
        }
        const { lines, tooWide } = shown
        if (tooWide) {
          watch.problems.push(
            `${watch.owner}: line ${tooWide.index + 1} it drew is ${tooWide.width} columns wide, wider than the terminal's ${COLUMNS}; Pi's TUI stops on it ("Rendered line exceeds terminal width"). Cut lines with truncateToWidth() from pi-tui`,
          )
        }
        return lines
      }
      const lines = frame()
      component.setExpanded(true)
      const expandedLines = frame()
      component.setExpanded(false)
      const fresh = [...new Set(watch.problems)].filter((problem) => !told.has(problem))
      for (const problem of fresh) told.add(problem)
      return { ...about, ...(partial ? { partial: true as const } : {}), lines, expandedLines, ...(fresh.length > 0 ? { error: fresh.join('; ') } : {}) }
    },
    close: () => screen.close(),
  }
}

interface ThrowWatch {
  /** Whose renderers: `the message renderer of "x"`, `tool "x"'s`. */
  owner: string
  /** What went wrong so far, as sentences: what a wrapped renderer threw (each error once), a line too wide. */
  problems: string[]
  wrap<F extends (...args: never[]) => unknown>(renderer: F, name?: string): F
}

/** Wraps renderers so that what they throw is remembered, then thrown on to Pi, which falls back as it does. */
function watchThrows(owner: string): ThrowWatch {
  const watch: ThrowWatch = {
    owner,
    problems: [],
    wrap: (renderer, name = owner) =>
      ((...args: never[]) => {
        try {
          return renderer(...args)
        } catch (error) {
          watch.problems.push(`${name} threw: ${messageOf(error)}${thrownAt(error)}; Pi draws its default instead`)
          throw error
        }
      }) as typeof renderer,
  }
  return watch
}
