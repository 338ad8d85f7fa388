// Model services as 0.73 builds them, an AuthStorage and a ModelRegistry over it, which the
// `@earendil-works` line kept until 0.79: shared by both lines' adapters.
import type { AuthStorage, ModelRegistry } from '@mariozechner/pi-coding-agent'
import type { Model } from '@mariozechner/pi-ai'

export interface AuthStorageClasses {
  AuthStorage: Pick<typeof AuthStorage, 'inMemory'>
  ModelRegistry: Pick<typeof ModelRegistry, 'inMemory'>
}

/**
 * Every listed provider gets a key but those `withheld` (prompt() refuses a model whose provider has none;
 * the key is never sent anywhere); `available`, when given, is exactly what the registry lists.
 */
export function authStorageModelServices(
  { AuthStorage, ModelRegistry }: AuthStorageClasses,
  model: Model<string>,
  available: Model<string>[] | undefined,
  withheld: readonly string[],
): { authStorage: AuthStorage; modelRegistry: ModelRegistry } {
  const without = new Set(withheld)
  const keyed = [model, ...(available ?? [])].map((m) => m.provider).filter((provider) => !without.has(provider))
  const authStorage = AuthStorage.inMemory(Object.fromEntries(keyed.map((provider) => [provider, { type: 'api_key' as const, key: 'scripted' }])))
  withholdKeys(authStorage, without)
  const modelRegistry = ModelRegistry.inMemory(authStorage)
  if (available) listModels(modelRegistry, available, without)
  return { authStorage, modelRegistry }
}

function listModels(registry: ModelRegistry, models: Model<string>[], withheld: ReadonlySet<string>): void {
  registry.getAll = () => [...models]
  registry.getAvailable = () => models.filter((m) => !withheld.has(m.provider))
  registry.find = (provider, id) => models.find((m) => m.provider === provider && m.id === id)
}

/** Providers without credentials, as Pi sees them with no key stored, none in the environment and no fallback. */
function withholdKeys(auth: AuthStorage, withheld: ReadonlySet<string>): void {
  const hasAuth = auth.hasAuth.bind(auth)
  const getApiKey = auth.getApiKey.bind(auth)
  auth.hasAuth = (provider) => !withheld.has(provider) && hasAuth(provider)
  auth.getApiKey = async (provider, options) => (withheld.has(provider) ? undefined : getApiKey(provider, options))
}
