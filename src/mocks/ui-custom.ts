// ctx.ui.custom() driven by keys: the extension's component factory runs with Pi's TUI, theme and
// keybindings on a terminal of a fixed size, gets the scripted keys, and its own done() answers the call.
// Widget factories (ctx.ui.setWidget(key, (tui, theme) => component)) render on the same kind of screen.
import { openScreen, screenNow, type ComponentScreen, type Frame, type MountOptions } from '../pi/index.js'
import type { CustomFrame, UICallRecord } from '../records/records.js'
import { describeReceived, messageOf, thrownAt } from '../shared/errors.js'
import { describeKey, keystrokes, type CustomKeys, type KeyInput } from './keys.js'
import { nextMacrotask } from '../shared/real-timers.js'

type Factory = (tui: unknown, theme: unknown, keybindings: unknown, done: (result: unknown) => void) => unknown
type Mounted = Parameters<ComponentScreen['mount']>[0] & { dispose?(): void }

// After the last key, done() may still come from the component's own promise work (not from a timer).
const SETTLE_TURNS = 10
const nextTurn = nextMacrotask

/**
 * Runs `factory` as Pi's interactive mode does, feeds it `script.keys`, and resolves with what the component
 * passes to done(). Frames go to `call.frames`. A factory that throws rejects as in Pi; that, a component that
 * throws on a key or draws wider than the terminal, keys left after done() and no done() after the last key
 * are `report`ed: they fail the test.
 */
export async function driveCustom(
  factory: Factory,
  options: MountOptions | undefined,
  script: CustomKeys,
  call: UICallRecord,
  report: (error: Error) => void,
  path = 'mockUI.custom',
): Promise<unknown> {
  let presses: { key: KeyInput; bytes: string[] }[]
  try {
    const keys: unknown = script.keys
    if (!Array.isArray(keys)) throw new TypeError(`${path}.keys must be an array of keys (["down", "enter"]), got ${describeReceived(keys)}`)
    presses = script.keys.map((key, index) => ({ key, bytes: keystrokes(key, `${path}.keys[${index}]`) }))
  } catch (error) {
    report(error as Error)
    throw error
  }
  const columns = script.columns ?? 80
  const screen = await openScreen({ columns, rows: script.rows ?? 24 })
  const frames: CustomFrame[] = (call.frames = [])
  let closed = false
  let result: unknown
  const done = (value: unknown) => {
    if (closed) return
    closed = true
    result = value
  }
  let component: Mounted | undefined
  try {
    component = (await factory(screen.tui, screen.theme, screen.keybindings, done)) as Mounted
  } catch (error) {
    screen.close()
    report(new Error(`ctx.ui.custom(): the component factory threw: ${messageOf(error)}${thrownAt(error)}`, { cause: error }))
    throw error
  }
  const fail = (message: string) => {
    report(new Error(`ctx.ui.custom(): ${message}`))
    closed = true
  }
  // What the screen shows, recorded; false when Pi's TUI would have stopped on it.
  const show = (after?: string): boolean => {
    let frame: Frame
    try {
      frame = screen.frame()
    } catch (error) {
      fail(`the component's render threw${after === undefined ? '' : ` after key ${after}`}: ${messageOf(error)}${thrownAt(error)}`)
      return false
    }
    frames.push(after === undefined ? { lines: frame.lines } : { after, lines: frame.lines })
    if (!frame.tooWide) return true
    const { index, width } = frame.tooWide
    fail(`line ${index + 1} the component rendered is ${width} columns wide, wider than the terminal's ${columns}; Pi's TUI stops on it ("Rendered line exceeds terminal width"). Cut lines with truncateToWidth() from pi-tui`)
    return false
  }
  try {
    if (closed) {
      checkUnused(presses.length, 0, report, presses.map((p) => describeKey(p.key)))
      return result
    }
    screen.mount(component, options)
    if (!show()) return undefined
    let pressed = 0
    for (const press of presses) {
      await nextTurn()
      if (closed) break
      try {
        for (const bytes of press.bytes) if (!closed) screen.press(bytes)
      } catch (error) {
        fail(`the component threw on key ${describeKey(press.key)}: ${messageOf(error)}${thrownAt(error)}`)
        return undefined
      }
      pressed++
      if (!closed && !show(describeKey(press.key))) return undefined
    }
    for (let turn = 0; !closed && turn < SETTLE_TURNS; turn++) await nextTurn()
    if (!closed) {
      const last = frames.at(-1)?.lines.join('\n      ') ?? ''
      fail(`the component did not call done() after ${pressed} key(s) [${presses.map((p) => describeKey(p.key)).join(', ')}]. It showed:\n      ${last}`)
      return undefined
    }
    checkUnused(presses.length, pressed, report, presses.slice(pressed).map((p) => describeKey(p.key)))
    return result
  } finally {
    screen.close()
    disposeQuietly(component)
  }
}

function checkUnused(total: number, pressed: number, report: (error: Error) => void, left: string[]): void {
  if (pressed < total) {
    report(new Error(`ctx.ui.custom(): the component called done() after ${pressed} of ${total} key(s); left unpressed: ${left.join(', ')}`))
  }
}

// As Pi's interactive mode: a component's dispose error is ignored.
function disposeQuietly(component: Mounted | undefined): void {
  try {
    component?.dispose?.()
  } catch {
    /* ignored, as Pi does */
  }
}

/** A widget factory's lines at 80 columns, rendered once when set; undefined until Pi's TUI modules are loaded. */
export function renderWidget(factory: (tui: unknown, theme: unknown) => unknown): string[] | undefined {
  const screen = screenNow({ columns: 80, rows: 24 })
  if (!screen) return undefined
  let component: Mounted | undefined
  try {
    component = factory(screen.tui, screen.theme) as Mounted
    screen.mount(component)
    return screen.frame().lines
  } finally {
    screen.close()
    disposeQuietly(component)
  }
}
