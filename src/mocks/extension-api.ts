// The extension API as the spec's session, tools and model blocks describe it: listed tools, a thinking
// level, and mutations a block refuses.
import type { ExtensionAPI } from '../pi/types.js'
import type { MockBlocks } from './spec/resolve.js'

const refused = (what: string, block: string) =>
  new Error(`${what} is refused by the mock spec (${block}.accept_mutations: false)`)

/** The extension API as the spec's session, tools and model blocks describe it. */
export function overrideApi(api: ExtensionAPI, blocks: MockBlocks): ExtensionAPI {
  const { session, tools, model } = blocks
  const overrides: Partial<ExtensionAPI> = {}
  if (session?.accept_mutations === false) {
    overrides.setSessionName = () => {
      throw refused('pi.setSessionName()', 'session')
    }
    overrides.appendEntry = () => {
      throw refused('pi.appendEntry()', 'session')
    }
    overrides.setLabel = () => {
      throw refused('pi.setLabel()', 'session')
    }
  }
  if (tools?.active_tools) {
    let active = [...tools.active_tools]
    overrides.getActiveTools = () => [...active]
    overrides.setActiveTools = (names) => {
      active = [...names]
      api.setActiveTools(names)
    }
  }
  if (tools?.all_tools) {
    const all = tools.all_tools.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      parameters: (t.input_schema ?? { type: 'object', properties: {} }) as never,
      sourceInfo: { path: `<mock:${t.name}>`, source: 'mock', scope: 'temporary', origin: 'top-level' } as never,
    }))
    overrides.getAllTools = () => all
  }
  if (model) {
    let level = model.thinking_level ?? 'off'
    overrides.getThinkingLevel = () => level as never
    overrides.setThinkingLevel = (next) => {
      if (model.accept_mutations === false) throw refused('pi.setThinkingLevel()', 'model')
      level = next as typeof level
      api.setThinkingLevel(next)
    }
    if (model.accept_mutations === false) {
      overrides.setModel = async () => {
        throw refused('pi.setModel()', 'model')
      }
    }
  }
  return { ...api, ...overrides }
}
