// A recording ExtensionUIContext: dialogs answer from the test's script, every other call is recorded.
import { lazyTheme } from '../pi/index.js'
import type { ExtensionUIContext, ExtensionUIDialogOptions } from '../pi/types.js'
import type { UICallRecord, WidgetRecord } from '../records/records.js'
import type { UiMock } from './spec/types.js'
import { isCustomKeys } from './keys.js'
import { driveCustom, renderWidget } from './ui-custom.js'
import { nextMacrotask } from '../shared/real-timers.js'

/** An answer meaning "the user let the dialog time out"; the dialog must have a `timeout` option. */
export const TIMEOUT: unique symbol = Symbol.for('vitest-environment-pi:dialog-timeout')
export type Timeout = typeof TIMEOUT

type Answer<T> = T | Timeout
/** A static answer, a queue of answers used in order, or a function of the dialog's arguments. */
export type DialogScript<T, Args extends unknown[]> =
  | Answer<T>
  | readonly Answer<T>[]
  | ((...args: Args) => Answer<T> | Promise<Answer<T>>)

export interface MockUIOptions {
  confirm?: DialogScript<boolean, [title: string, message: string]>
  /** An option's text or its index; a text that matches no option is an error, never option 0. */
  select?: DialogScript<string | number | undefined, [title: string, options: string[]]>
  input?: DialogScript<string | undefined, [title: string, placeholder: string | undefined]>
  editor?: DialogScript<string | undefined, [title: string, prefill: string | undefined]>
  /**
   * `{ keys: ['down', 'enter'] }` (with `columns`, `rows`; default 80 × 24) runs the component factory with Pi's
   * TUI and feeds it the keys: its done() answers. A function gets the factory and returns the answer. An array
   * is a queue, one script per call, in order. Any other value is what `ctx.ui.custom()` resolves with, without
   * running the factory (an array meant as the answer: `() => [...]`).
   */
  custom?: unknown
  /** An unscripted dialog is an error instead of being dismissed. */
  strict?: boolean
  /** The text `getEditorText()` returns until the extension sets it. */
  editorText?: string
}

type DialogMethod = 'confirm' | 'select' | 'input' | 'editor'

/** What Pi's own UI returns when a dialog is dismissed, times out, or no UI exists. */
const DISMISSED: Record<DialogMethod, boolean | undefined> = {
  confirm: false,
  select: undefined,
  input: undefined,
  editor: undefined,
}

/** What a dialog nothing scripted answers with instead of being dismissed: the mock spec's ui block defaults. */
export interface DialogDefaults {
  confirm?: boolean
  input?: string
  editor?: string
}

/** The text in Pi's editor: extensions set and read it, and Pi itself puts a forked user message there. */
export interface EditorBuffer {
  text: string
}

export interface MockUIHooks {
  record(call: UICallRecord): void
  /** Where the editor's text is kept, for what Pi itself puts there; one of its own when not given. */
  editor?: EditorBuffer
  /** A widget was set or cleared (it is also recorded as a `setWidget` call). */
  widget?(widget: WidgetRecord): void
  /** A scripting mistake: thrown into the extension AND reported to the test, which fails. */
  problem(error: Error): void
  /** Set once the session has ended: a dialog opened then is reported as its late work, and throws. */
  ended?(): ((what: string) => Error) | undefined
  /** Set while code of a replaced instance runs (its timer): a dialog it opens is reported, naming the instance, and throws. */
  replaced?(): ((what: string, stack: string | undefined) => Error) | undefined
}

export interface MockUI {
  context: ExtensionUIContext
}

/**
 * `options === false` makes a headless UI: every call is recorded, dialogs answer as Pi's does
 * without a UI (false / undefined). `defaults` answer what `options` does not script; their records say so.
 */
export function createMockUI(options: MockUIOptions | false, hooks: MockUIHooks, defaults: DialogDefaults = {}): ExtensionUIContext {
  const script: MockUIOptions = options === false ? {} : options
  const headless = options === false
  const queues = new Map<DialogMethod | 'custom', number>()
  const editor = hooks.editor ?? { text: '' }
  editor.text = script.editorText ?? ''
  let toolsExpanded = false
  let editorComponent: Parameters<ExtensionUIContext['setEditorComponent']>[0]

  const record = (method: string, args: unknown[], returnValue?: unknown) => {
    const call: UICallRecord = returnValue === undefined ? { method, args } : { method, args, returnValue }
    hooks.record(call)
    return call
  }

  const fail = (message: string): never => {
    const error = new Error(message)
    hooks.problem(error)
    throw error
  }

  /** The script for the next custom() call, and where it is in the options (`mockUI.custom[1]`). */
  const nextCustom = (): [unknown, string] => {
    if (!Array.isArray(script.custom)) return [script.custom, 'mockUI.custom']
    const used = queues.get('custom') ?? 0
    if (used >= script.custom.length) fail(`mockUI.custom ran out of answers: custom() is call ${used + 1}, the queue has ${script.custom.length}`)
    queues.set('custom', used + 1)
    return [script.custom[used], `mockUI.custom[${used}]`]
  }

  async function dialog<T>(method: DialogMethod, args: unknown[], opts: ExtensionUIDialogOptions | undefined): Promise<T> {
    const ended = hooks.ended?.()
    if (ended) throw ended(`A dialog ${method}(${JSON.stringify(args[0])})`)
    const replaced = hooks.replaced?.()
    if (replaced) throw replaced(`A dialog ${method}(${JSON.stringify(args[0])})`, new Error().stack)
    const call = record(method, args)
    if (opts !== undefined) call.options = recordedOptions(opts)
    const settle = (value: unknown) => {
      call.returnValue = value
      return value as T
    }
    const label = `${method}(${JSON.stringify(args[0])})`
    if (headless || opts?.signal?.aborted) return settle(DISMISSED[method])
    const scripted = script[method] as DialogScript<unknown, unknown[]> | undefined
    const fallback = method === 'select' ? undefined : defaults[method]
    const defaulted = scripted === undefined && fallback !== undefined
    const configured = scripted ?? fallback
    if (configured === undefined) {
      if (script.strict) fail(`Unscripted dialog ${label}: strict mockUI needs an answer, e.g. mockUI: { ${method}: ... }`)
      return settle(DISMISSED[method])
    }
    // A person answers on a later event, after Pi has finished what it was doing (e.g. ending a run).
    await nextMacrotask()
    let answer: unknown
    if (Array.isArray(configured)) {
      const used = queues.get(method) ?? 0
      if (used >= configured.length) {
        fail(`mockUI.${method} ran out of answers: ${label} is call ${used + 1}, the queue has ${configured.length}`)
      }
      queues.set(method, used + 1)
      answer = configured[used]
    } else if (typeof configured === 'function') {
      answer = await abortable(Promise.resolve(configured(...args)), opts?.signal)
    } else {
      answer = configured
    }
    if (answer === ABORTED || opts?.signal?.aborted) return settle(DISMISSED[method])
    if (answer === TIMEOUT) {
      if (opts?.timeout === undefined) fail(`mockUI.${method} answered TIMEOUT, but ${label} has no timeout option`)
      return settle(DISMISSED[method])
    }
    if (method === 'select') return settle(chooseOption(answer, args[1] as string[], label, fail))
    if (defaulted) call.defaulted = true
    return settle(answer)
  }

  const context: ExtensionUIContext = {
    select: (title, options, opts) => dialog('select', [title, options], opts),
    confirm: (title, message, opts) => dialog('confirm', [title, message], opts),
    input: (title, placeholder, opts) => dialog('input', [title, placeholder], opts),
    editor: (title, prefill) => dialog('editor', [title, prefill], undefined),
    async custom(factory, customOptions) {
      const call = record('custom', [factory, customOptions])
      let value: unknown
      if (!headless) {
        const [answer, path] = nextCustom()
        if (isCustomKeys(answer)) value = await driveCustom(factory as never, customOptions, answer, call, hooks.problem, path)
        else value = typeof answer === 'function' ? await (answer as (f: unknown) => unknown)(factory) : answer
      }
      call.returnValue = value
      return value as never
    },
    notify: (message, type) => void record('notify', [message, type ?? 'info']),
    onTerminalInput: (handler) => {
      record('onTerminalInput', [handler])
      return () => {}
    },
    setStatus: (key, text) => void record('setStatus', [key, text]),
    setWorkingMessage: (message) => void record('setWorkingMessage', [message]),
    setWorkingVisible: (visible) => void record('setWorkingVisible', [visible]),
    setWorkingIndicator: (indicator) => void record('setWorkingIndicator', [indicator]),
    setHiddenThinkingLabel: (label) => void record('setHiddenThinkingLabel', [label]),
    setWidget: (key: string, content: unknown, widgetOptions?: unknown) => {
      record('setWidget', [key, content, widgetOptions])
      hooks.widget?.(widgetRecord(key, content, widgetOptions))
    },
    setFooter: (factory) => void record('setFooter', [factory]),
    setHeader: (factory) => void record('setHeader', [factory]),
    setTitle: (title) => void record('setTitle', [title]),
    pasteToEditor: (text) => {
      record('pasteToEditor', [text])
      editor.text += text
    },
    setEditorText: (text) => {
      record('setEditorText', [text])
      editor.text = text
    },
    getEditorText: () => editor.text,
    addAutocompleteProvider: (factory) => void record('addAutocompleteProvider', [factory]),
    setEditorComponent: (factory) => {
      record('setEditorComponent', [factory])
      editorComponent = factory
    },
    getEditorComponent: () => editorComponent,
    theme: lazyTheme,
    getAllThemes: () => [],
    getTheme: () => undefined,
    setTheme: (theme) => {
      record('setTheme', [theme])
      return { success: false, error: 'Themes are not loaded in tests' }
    },
    getToolsExpanded: () => toolsExpanded,
    setToolsExpanded: (expanded) => {
      record('setToolsExpanded', [expanded])
      toolsExpanded = expanded
    },
  }
  return context
}

const ABORTED = Symbol('aborted')

function widgetRecord(key: string, content: unknown, widgetOptions: unknown): WidgetRecord {
  const options = widgetOptions === undefined ? {} : { options: { ...(widgetOptions as Record<string, unknown>) } }
  if (typeof content === 'function') return { key, lines: renderWidget(content as (tui: unknown, theme: unknown) => unknown), component: true, ...options }
  return { key, lines: content === undefined ? undefined : [...(content as string[])], ...options }
}

/** A dialog's options as recorded: as passed, an AbortSignal as `signal: true` (a record must compare and snapshot). */
function recordedOptions(opts: ExtensionUIDialogOptions): Record<string, unknown> {
  const { signal, ...rest } = opts as ExtensionUIDialogOptions & Record<string, unknown>
  return signal === undefined ? rest : { ...rest, signal: true }
}

/** A dialog whose signal aborts resolves as dismissed, as Pi's dialogs do. */
function abortable<T>(answer: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (!signal) return answer
  // It may have aborted while the answer was being prepared; an abort event would not come again.
  if (signal.aborted) return Promise.resolve(ABORTED)
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED)
    signal.addEventListener('abort', onAbort, { once: true })
    answer.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

function chooseOption(answer: unknown, options: string[], label: string, fail: (message: string) => never): string | undefined {
  if (answer === undefined) return undefined
  if (typeof answer === 'number') {
    if (Number.isInteger(answer) && answer >= 0 && answer < options.length) return options[answer]
    return fail(`mockUI.select answered index ${answer}, but ${label} has ${options.length} option(s): ${JSON.stringify(options)}`)
  }
  if (typeof answer === 'string' && options.includes(answer)) return answer
  return fail(`mockUI.select answered ${JSON.stringify(answer)}, which is not an option of ${label}: ${JSON.stringify(options)}`)
}

/** The spec's ui block's responses as dialog answers; explicit mockUI options win. */
export function uiOptions(ui: UiMock | undefined): MockUIOptions {
  const { confirm, select, input, editor, custom } = (ui?.responses ?? {}) as MockUIOptions
  return Object.fromEntries(Object.entries({ confirm, select, input, editor, custom }).filter(([, answer]) => answer !== undefined))
}

/** The spec's ui block's defaults (the schema's: confirm true, text ""); none without a ui block. */
export function uiDefaults(ui: UiMock | undefined): DialogDefaults {
  if (!ui) return {}
  const text = ui.dialog_default ?? ''
  return { confirm: ui.confirm_default ?? true, input: text, editor: text }
}
