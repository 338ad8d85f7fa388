// Pi's terminal UI for the components an extension shows (ctx.ui.custom(), widget factories), on a
// terminal of a fixed size kept in memory: the running line's pi-tui, the TUI its interactive mode builds,
// and the theme and keybindings that mode hands a component's factory.
import ansiRegex from 'ansi-regex'
import type { KeybindingsManager, Theme } from '@mariozechner/pi-coding-agent'
import type { Component, OverlayHandle, OverlayOptions, Terminal, TUI } from '@mariozechner/pi-tui'
import { adapter, currentTheme, PI_LINE } from './running-line.js'
import { importPiEntry, importPiFile } from './bundled.js'

type PiTuiModule = typeof import('@mariozechner/pi-tui')

export interface ScreenSize {
  columns: number
  rows: number
}

/** How `ctx.ui.custom()` asked to show its component (Pi's own option names). */
export interface MountOptions {
  overlay?: boolean
  overlayOptions?: OverlayOptions | (() => OverlayOptions)
  onHandle?: (handle: OverlayHandle) => void
}

export interface Frame {
  /** The lines on screen, terminal sequences and trailing spaces removed. */
  lines: string[]
  /** The first line wider than the terminal, which Pi's TUI refuses to draw (it stops with an error). */
  tooWide?: { index: number; width: number }
}

export interface ComponentScreen {
  /** What Pi's interactive mode passes a component factory: its TUI, the theme, its keybindings. */
  readonly tui: TUI
  readonly theme: Theme
  readonly keybindings: KeybindingsManager
  /** Shows the component as Pi's interactive mode does: alone on screen and focused, or as an overlay. */
  mount(component: Component, options?: MountOptions): void
  /** `data` arrives from the keyboard: the TUI routes it to the focused component (its input listeners first). */
  press(data: string): void
  /** What the screen shows now: the TUI's lines at the terminal's width, or an overlay's own lines at its width. */
  frame(): Frame
  /** Stops the TUI (its render timer and terminal), as Pi does when a component is done. */
  close(): void
}

interface Loaded {
  piTui: PiTuiModule
  keybindings: KeybindingsManager
}

let loading: Promise<void> | undefined
let loaded: Loaded | undefined

/** Loads Pi's TUI modules ahead, so that `screenNow` can build a screen synchronously (for widget factories). */
export function preloadTui(): Promise<void> {
  return (loading ??= load().then((modules) => {
    loaded = modules
  }))
}

// pi-tui is a dependency of the coding agent, not a peer of this package: it is found from the coding
// agent, so the TUI and the extension's own `@…/pi-tui` imports are one module instance.
async function load(): Promise<Loaded> {
  const piTui = await importPiEntry<PiTuiModule>(PI_LINE, 'pi-tui')
  // Pi's app keybindings are not exported by name; its interactive mode builds them from this module.
  const { KeybindingsManager } = (await importPiFile<{ KeybindingsManager: new () => KeybindingsManager }>(PI_LINE, 'dist/core/keybindings.js'))!
  // The defaults: the session's agent dir holds no keybindings.json.
  const keybindings = new KeybindingsManager()
  // As the interactive mode does: pi-tui's own components (SelectList, Editor) read the global ones.
  piTui.setKeybindings(keybindings as never)
  return { piTui, keybindings }
}

/** The running line's pi-tui module and the app's keybindings, as the interactive mode has them. */
export async function tuiModules(): Promise<Loaded> {
  await preloadTui()
  return loaded!
}

/** A TUI of the running line on a terminal of `size` in memory, started, with nothing on screen yet. */
export async function openScreen(size: ScreenSize): Promise<ComponentScreen> {
  await preloadTui()
  return screenNow(size)!
}

/** openScreen, synchronously: undefined until preloadTui() has finished. */
export function screenNow(size: ScreenSize): ComponentScreen | undefined {
  if (!loaded) return undefined
  const { piTui, keybindings } = loaded
  const terminal = new MemoryTerminal(size)
  const tui = adapter.createTui(piTui as unknown as Record<string, unknown>, terminal)
  tui.start()
  let overlay: { component: Component; width: number } | undefined
  // Trailing spaces are padding (Text fills the width): on screen they are the blank they stand for.
  const plain = (line: string) => line.replaceAll(piTui.CURSOR_MARKER, '').replace(TERMINAL_SEQUENCE, '').trimEnd()
  return {
    tui,
    theme: currentTheme(),
    keybindings,
    mount(component, options) {
      if (options?.overlay) {
        const given = typeof options.overlayOptions === 'function' ? options.overlayOptions() : options.overlayOptions
        // Pi's fallback: the component's own `width`.
        const width = (component as { width?: number }).width
        const overlayOptions = given ?? (width ? { width } : undefined)
        const handle = tui.showOverlay(component, overlayOptions)
        options.onHandle?.(handle)
        overlay = { component, width: overlayWidth(overlayOptions, size.columns) }
      } else {
        tui.addChild(component)
        tui.setFocus(component)
        tui.requestRender()
      }
    },
    press: (data) => terminal.type(data),
    frame() {
      const raw = overlay ? overlay.component.render(overlay.width) : tui.render(size.columns)
      const index = raw.findIndex((line) => piTui.visibleWidth(line) > size.columns)
      const lines = raw.map(plain)
      return index < 0 ? { lines } : { lines, tooWide: { index, width: piTui.visibleWidth(raw[index]!) } }
    },
    close: () => tui.stop(),
  }
}

const TERMINAL_SEQUENCE = ansiRegex()

/** The width Pi's TUI gives an overlay: `width` (columns or a percentage), else 80 at most, within the terminal. */
function overlayWidth(options: OverlayOptions | undefined, columns: number): number {
  const size = options?.width
  let width = typeof size === 'number' ? size : typeof size === 'string' ? Math.floor((columns * parseFloat(size)) / 100) : Math.min(80, columns)
  if (options?.minWidth !== undefined) width = Math.max(width, options.minWidth)
  return Math.max(1, Math.min(width, columns))
}

/** pi-tui's Terminal, in memory: a fixed size, input typed by the test, output dropped (frames are read from the TUI). */
class MemoryTerminal implements Terminal {
  #onInput: ((data: string) => void) | undefined
  constructor(private readonly size: ScreenSize) {}
  get columns() {
    return this.size.columns
  }
  get rows() {
    return this.size.rows
  }
  get kittyProtocolActive() {
    return false
  }
  start(onInput: (data: string) => void): void {
    this.#onInput = onInput
  }
  stop(): void {
    this.#onInput = undefined
  }
  type(data: string): void {
    this.#onInput?.(data)
  }
  async drainInput(): Promise<void> {}
  write(): void {}
  moveBy(): void {}
  hideCursor(): void {}
  showCursor(): void {}
  clearLine(): void {}
  clearFromCursor(): void {}
  clearScreen(): void {}
  setTitle(): void {}
  setProgress(): void {}
  // Pi 1.x's Terminal reports the program's status (busy, blocked on input) to the terminal.
  setProgramStatus(): void {}
}
