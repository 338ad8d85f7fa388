import { inspect } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { Theme, type ExtensionAPI, type ExtensionContext } from '@mariozechner/pi-coding-agent'
import { createTestSession, TIMEOUT, type MockUIOptions, type TestSession } from '../src/index.js'
import { adapter } from '../src/pi/running-line.js'

/** Registers `/ask`, which runs `dialog` and notifies what it answered. */
function asker(dialog: (ctx: ExtensionContext, args: string) => Promise<unknown>) {
  return (pi: ExtensionAPI) =>
    pi.registerCommand('ask', {
      handler: async (args, ctx) => ctx.ui.notify(`answer: ${JSON.stringify(await dialog(ctx, args))}`),
    })
}

describe('mockUI', () => {
  let t: TestSession | undefined
  afterEach(async () => {
    await t?.dispose()
    t = undefined
  })

  const answers = () => t!.events.uiCallsFor('notify').map((c) => c.args[0])
  const session = async (dialog: Parameters<typeof asker>[0], mockUI: MockUIOptions | false = {}) => {
    t = await createTestSession({ extensions: [asker(dialog)], mockUI })
    return t
  }

  it('answers with a static value, a function of the arguments, or a queue used in order', async () => {
    await session((ctx) => ctx.ui.confirm('Delete?', 'really'), { confirm: [true, false] })
    await t!.command('ask')
    await t!.command('ask')
    await expect(t!.command('ask')).rejects.toThrow('mockUI.confirm ran out of answers: confirm("Delete?") is call 3, the queue has 2')
    expect(answers()).toEqual(['answer: true', 'answer: false'])
    await t!.dispose()

    await session((ctx, args) => ctx.ui.input(`Name for ${args}?`, 'placeholder'), { input: (title) => title.toUpperCase() })
    await t!.command('ask', 'cat')
    expect(answers()).toEqual(['answer: "NAME FOR CAT?"'])
    expect(t!.events.uiCallsFor('input')).toEqual([{ method: 'input', args: ['Name for cat?', 'placeholder'], returnValue: 'NAME FOR CAT?' }])
  })

  it('selects an option by text or index, and never falls back to option 0', async () => {
    await session((ctx) => ctx.ui.select('Env?', ['dev', 'prod']), { select: ['prod', 0, 'staging'] })
    await t!.command('ask')
    await t!.command('ask')
    await expect(t!.command('ask')).rejects.toThrow('mockUI.select answered "staging", which is not an option of select("Env?"): ["dev","prod"]')
    expect(answers()).toEqual(['answer: "prod"', 'answer: "dev"'])
  })

  it('fails a select answered with an index past its options', async () => {
    await session((ctx) => ctx.ui.select('Env?', ['dev', 'prod']), { select: 2 })
    await expect(t!.command('ask')).rejects.toThrow('mockUI.select answered index 2, but select("Env?") has 2 option(s): ["dev","prod"]')
  })

  it('dismisses an unscripted dialog as Pi does, or fails it in strict mode', async () => {
    await session(async (ctx) => [await ctx.ui.confirm('Sure?', ''), await ctx.ui.select('Pick', ['a']), await ctx.ui.editor('Edit')])
    await t!.command('ask')
    expect(answers()).toEqual(['answer: [false,null,null]'])
    await t!.dispose()

    await session((ctx) => ctx.ui.confirm('Sure?', ''), { strict: true })
    await expect(t!.command('ask')).rejects.toThrow('Unscripted dialog confirm("Sure?"): strict mockUI needs an answer, e.g. mockUI: { confirm: ... }')
  })

  it('times a dialog out as Pi does when the answer is TIMEOUT, and only if it has a timeout', async () => {
    await session((ctx, args) => ctx.ui.confirm('Proceed?', '', args ? { timeout: 5000 } : undefined), { confirm: TIMEOUT })
    await t!.command('ask', 'with-timeout')
    expect(answers()).toEqual(['answer: false'])
    await expect(t!.command('ask')).rejects.toThrow('mockUI.confirm answered TIMEOUT, but confirm("Proceed?") has no timeout option')
  })

  it('dismisses a dialog whose signal aborts while the answer is pending', async () => {
    await session(
      (ctx) => {
        const controller = new AbortController()
        setTimeout(() => controller.abort(), 5)
        return ctx.ui.select('Slow?', ['a', 'b'], { signal: controller.signal })
      },
      { select: () => new Promise((resolve) => setTimeout(() => resolve('a'), 1000)) },
    )
    await t!.command('ask')
    expect(answers()).toEqual(['answer: undefined'])
  })

  it('dismisses a dialog whose signal is already aborted at once: it takes no answer from the queue, and no answer function runs', async () => {
    const asked: string[] = []
    await session(
      async (ctx) => [
        await ctx.ui.confirm('Cancelled?', '', { signal: AbortSignal.abort() }),
        await ctx.ui.input('Cancelled too?', '', { signal: AbortSignal.abort() }),
        await ctx.ui.confirm('Sure?', ''),
      ],
      {
        confirm: [true],
        input: (title) => {
          asked.push(title)
          return 'typed'
        },
      },
    )
    await t!.command('ask')
    expect(answers()).toEqual(['answer: [false,null,true]'])
    expect(asked).toEqual([])
  })

  it('dismisses a dialog whose signal aborts before its answer is given, even a static one', async () => {
    // Aborted at once, while the mock waits for the event a person would answer on.
    await session(
      (ctx) => {
        const controller = new AbortController()
        const answer = ctx.ui.confirm('Sure?', '', { signal: controller.signal })
        controller.abort()
        return answer
      },
      { confirm: true },
    )
    await t!.command('ask')
    expect(answers()).toEqual(['answer: false'])
    expect(t).toHavePrompted('confirm', 'Sure?', { answer: false, options: { signal: true } })
  })

  it('records every other member, keeps editor state, renders with the theme and resolves custom()', async () => {
    await session(
      async (ctx) => {
        ctx.ui.setStatus('mode', ctx.ui.theme.fg('accent', 'on'))
        ctx.ui.setWidget('todos', ['a', 'b'], { placement: 'belowEditor' })
        ctx.ui.setWorkingMessage('thinking')
        ctx.ui.setWorkingVisible(false)
        ctx.ui.setWorkingIndicator({ frames: ['●'], intervalMs: 500 })
        ctx.ui.setHiddenThinkingLabel('hidden')
        ctx.ui.setTitle('pi - test')
        ctx.ui.setEditorText('draft')
        ctx.ui.pasteToEditor(' more')
        ctx.ui.addAutocompleteProvider((current) => current)
        ctx.ui.setToolsExpanded(true)
        return [ctx.ui.getEditorText(), ctx.ui.getToolsExpanded(), await ctx.ui.custom(() => ({ render: () => [], invalidate: () => {} }))]
      },
      { custom: { choice: 42 } },
    )
    await t!.command('ask')
    expect(answers()).toEqual(['answer: ["draft more",true,{"choice":42}]'])
    expect(t!.events.ui.map((c) => c.method)).toEqual([
      'setStatus',
      'setWidget',
      'setWorkingMessage',
      'setWorkingVisible',
      'setWorkingIndicator',
      'setHiddenThinkingLabel',
      'setTitle',
      'setEditorText',
      'pasteToEditor',
      'addAutocompleteProvider',
      'setToolsExpanded',
      'custom',
      'notify',
    ])
    expect(t!.events.uiCallsFor('setStatus')[0]!.args[1]).toContain('on')
    expect(t!.events.uiCallsFor('setWidget')[0]!.args).toEqual(['todos', ['a', 'b'], { placement: 'belowEditor' }])
  })

  it("ctx.ui.theme is Pi's own theme, built only when an extension first reads from it", async () => {
    // As a fresh process starts: no theme yet (Pi builds it on initTheme()).
    const themes = globalThis as Record<symbol, unknown>
    delete themes[adapter.themeKey]
    await session(async () => 'no drawing')
    await t!.command('ask')
    expect(themes[adapter.themeKey]).toBeUndefined()
    await t!.dispose()

    await session(async (ctx) => [ctx.ui.theme.fg('accent', 'on'), ctx.ui.theme instanceof Theme, 'fg' in ctx.ui.theme])
    await t!.command('ask')
    const real = themes[adapter.themeKey] as InstanceType<typeof Theme>
    expect(real).toBeInstanceOf(Theme)
    expect(answers()).toEqual([`answer: ${JSON.stringify([real.fg('accent', 'on'), true, true])}`])
    await t!.dispose()

    // Printed as the theme it stands for, as console.log(ctx.ui.theme) would show it.
    await session(async (ctx) => inspect(ctx.ui.theme, { depth: 0 }))
    await t!.command('ask')
    expect(answers()).toEqual([`answer: ${JSON.stringify(inspect(real, { depth: 0 }))}`])
  })

  it('headless: ctx.hasUI is false, dialogs answer as without a UI, and calls are still recorded', async () => {
    await session(async (ctx) => [ctx.hasUI, await ctx.ui.confirm('Sure?', ''), await ctx.ui.input('Name?')], false)
    await t!.command('ask')
    expect(answers()).toEqual(['answer: [false,false,null]'])
    expect(t!.events.uiCallsFor('confirm')).toEqual([{ method: 'confirm', args: ['Sure?', ''], returnValue: false }])
  })
})
