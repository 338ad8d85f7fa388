import { afterEach, expect, it } from 'vitest'
import * as Pi from '@mariozechner/pi-coding-agent'
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { createTestSession, forExtension, says, when } from '../environment/index.js'
import { validateMockSpec } from '../src/mocks/spec/index.js'

const COMMIT = './test/fixtures/extensions/commit-message.ts'

/** Reports what the registry says of each model's credentials, as a "no API key" branch reads it. */
function credentialsReport(seen: Record<string, unknown>) {
  return (pi: ExtensionAPI) => {
    pi.registerCommand('keys', {
      handler: async (_args, ctx) => {
        for (const model of ctx.modelRegistry.getAll()) {
          const auth = await ctx.modelRegistry.getApiKeyAndHeaders(model)
          seen[`${model.provider}/${model.id}`] = { configured: ctx.modelRegistry.hasConfiguredAuth(model), key: auth.ok ? auth.apiKey : `error: ${auth.error}` }
        }
        seen.available = ctx.modelRegistry.getAvailable().map((m) => m.id)
      },
    })
  }
}

const model = (without_credentials: string[]) => ({
  current: { provider: 'anthropic', model_id: 'claude-x' },
  available_models: [
    { provider: 'anthropic', id: 'claude-x', name: 'Claude X' },
    { provider: 'openai', id: 'gpt-y', name: 'GPT Y' },
    { provider: 'acme', id: 'rocket', name: 'Rocket' },
  ],
  without_credentials,
})

const saved = process.env.OPENAI_API_KEY
afterEach(() => {
  if (saved === undefined) delete process.env.OPENAI_API_KEY
  else process.env.OPENAI_API_KEY = saved
})

it('a provider in without_credentials has no key, even with one in the environment; the others have one', async () => {
  process.env.OPENAI_API_KEY = 'sk-from-the-environment'
  const seen: Record<string, unknown> = {}
  const t = await createTestSession({ extensions: [credentialsReport(seen)], mocks: { model: model(['openai', 'acme']) } })
  await t.command('keys')
  expect(seen).toEqual({
    'anthropic/claude-x': { configured: true, key: 'scripted' },
    'openai/gpt-y': { configured: false, key: undefined },
    'acme/rocket': { configured: false, key: undefined },
    available: ['claude-x'],
  })
})

it('every listed provider has a key when none is withheld', async () => {
  const seen: Record<string, unknown> = {}
  const t = await createTestSession({ extensions: [credentialsReport(seen)], mocks: { model: model([]) } })
  await t.command('keys')
  expect(seen).toMatchObject({ 'openai/gpt-y': { configured: true, key: 'scripted' }, 'acme/rocket': { configured: true, key: 'scripted' }, available: ['claude-x', 'gpt-y', 'rocket'] })
})

it("reaches an extension's no-key branch for the current model", async () => {
  const t = await createTestSession({ extensions: [COMMIT], mocks: { model: model(['anthropic']) } })
  await t.command('commit')
  expect(t).toHaveNotified('No API key for anthropic', 'error')
  expect(t.events.modelRequests).toEqual([])
})

it("a prompt to a model without credentials fails as Pi's does", async () => {
  const t = await createTestSession({ mocks: { model: model(['anthropic']) } })
  await expect(t.run(when('hi', [says('never')]))).rejects.toThrow(/No API key found for anthropic/)
})

it('with the key, the same extension asks the model', async () => {
  const t = await createTestSession({ extensions: [COMMIT], mocks: { model: model(['openai']), exec: { default_result: { stdout: '' } } } })
  await t.command('commit', undefined, [forExtension(says('chore: tidy'))])
  expect(t).toHaveExecuted('git', ['commit', '-m', 'chore: tidy'])
})

it('validates without_credentials: provider names, each once', () => {
  const spec = (without_credentials: unknown) => ({ schema: 'pi.ext.mock_spec.v1', model: { without_credentials } })
  expect(() => validateMockSpec(spec(['openai/gpt-5']))).toThrow('mock spec: /model/without_credentials/0: names a model; Pi keeps credentials per provider: write "openai"')
  expect(() => validateMockSpec(spec(['openai', 'openai']))).toThrow('mock spec: /model/without_credentials: must NOT have duplicate items (items ## 1 and 0 are identical)')
  expect(() => validateMockSpec(spec(['']))).toThrow('mock spec: /model/without_credentials/0: must NOT have fewer than 1 characters')
  expect(() => validateMockSpec(spec('openai'))).toThrow('mock spec: /model/without_credentials: must be array')
})

it("an extension's own provider is listed and keyed as Pi lists it, beside the scripted one", async () => {
  const seen: Record<string, unknown> = {}
  const ownProvider = (pi: ExtensionAPI) => {
    pi.registerProvider('own', {
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'own-key-value',
      api: 'own-api',
      models: [{ id: 'own-1', name: 'Own', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 }],
    })
    credentialsReport(seen)(pi)
  }
  const t = await createTestSession({ extensions: [ownProvider] })
  await t.command('keys')
  expect(seen).toMatchObject({ 'own/own-1': { configured: true, key: 'own-key-value' } })
  expect(seen.available).toContain('own-1')
  // 1.x: the harness registered its scripted provider without Pi's refresh; Pi's own refresh is back in place.
  const runtime = (t.session as unknown as { modelRuntime?: object }).modelRuntime
  if (runtime) expect(Object.hasOwn(runtime, 'refresh')).toBe(false)
})

it("each session's registry lists Pi's own catalog, and what a session's extension registers stays in its registry", async () => {
  const listed: Record<string, string[]> = {}
  const lister = (name: string, register: boolean) => (pi: ExtensionAPI) => {
    if (register) {
      const model = { reasoning: false, input: ['text' as const], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 }
      // A provider of its own, and one that replaces every model of a built-in provider in this registry.
      pi.registerProvider('acme', { baseUrl: 'http://127.0.0.1:9', apiKey: 'acme-key', api: 'acme-api', models: [{ ...model, id: 'rocket', name: 'Rocket' }] })
      pi.registerProvider('anthropic', { baseUrl: 'http://127.0.0.1:9', apiKey: 'anthropic-key', api: 'anthropic-messages', models: [{ ...model, id: 'only-one', name: 'Only' }] })
    }
    pi.registerCommand('list', { handler: async (_args, ctx) => void (listed[name] = ctx.modelRegistry.getAll().map((m) => `${m.provider}/${m.id}`)) })
  }
  for (const [name, register] of [['before', false], ['registering', true], ['after', false]] as const) {
    const t = await createTestSession({ extensions: [lister(name, register)] })
    await t.command('list')
    await t.dispose()
  }
  expect(listed.registering).toContain('acme/rocket')
  expect(listed.registering).toContain('anthropic/only-one')
  expect(listed.after).not.toContain('acme/rocket')
  expect(listed.after).toEqual(listed.before)
  expect(listed.before!.filter((id) => id.startsWith('anthropic/')).length).toBeGreaterThan(1)
  // Where Pi builds the catalog per registry (0.73 and 1.x before 0.80), exactly the list Pi's own builds.
  const { AuthStorage, ModelRegistry } = Pi as Partial<typeof Pi>
  if (ModelRegistry && AuthStorage) {
    const own = ModelRegistry.inMemory(AuthStorage.inMemory()).getAll()
    expect(listed.before).toEqual(own.map((m) => `${m.provider}/${m.id}`))
  }
})
