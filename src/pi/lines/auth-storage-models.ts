// Model services as 0.73 builds them, an AuthStorage and a ModelRegistry over it, which the
// `@earendil-works` line kept until 0.79: shared by both lines' adapters.
import type { AuthStorage, ModelRegistry } from '@mariozechner/pi-coding-agent'
import type { Model } from '@mariozechner/pi-ai'

export interface AuthStorageClasses {
  AuthStorage: Pick<typeof AuthStorage, 'inMemory'>
  ModelRegistry: Pick<typeof ModelRegistry, 'inMemory' | 'create'>
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
  modelsPath?: string,
): { authStorage: AuthStorage; modelRegistry: ModelRegistry } {
  const without = new Set(withheld)
  const keyed = [model, ...(available ?? [])].map((m) => m.provider).filter((provider) => !without.has(provider))
  const authStorage = AuthStorage.inMemory(Object.fromEntries(keyed.map((provider) => [provider, { type: 'api_key' as const, key: 'scripted' }])))
  withholdKeys(authStorage, without)
  // A models.json defines models as in Pi, over the catalog built for it.
  const modelRegistry = modelsPath === undefined ? sharingCatalog(ModelRegistry, authStorage) : ModelRegistry.create(authStorage, modelsPath)
  if (available) listModels(modelRegistry, available, without)
  return { authStorage, modelRegistry }
}

/** The registry's constructor and its catalog step, behind their `private` declarations. */
type RegistryInternals = new (authStorage: AuthStorage, modelsJsonPath: undefined) => {
  loadBuiltInModels?(overrides: unknown, modelOverrides: unknown): Model<string>[]
}

// Pi builds its built-in catalog afresh for every registry: the models of every provider of pi-ai, about
// 970 on 0.73 (about 0.1 ms a session), though pi-ai's catalog cannot change within a process. A session's
// registry starts from a copy of the list built once per process (per line), as `inMemory` would build it:
// without overrides (there is no models.json), the same model objects in the same order. What a session's
// extensions then register changes its own copy only.
const sharing = new WeakMap<object, new (authStorage: AuthStorage) => object>()

function sharingCatalog(ModelRegistry: AuthStorageClasses['ModelRegistry'], authStorage: AuthStorage): ModelRegistry {
  const Registry = ModelRegistry as unknown as RegistryInternals
  // A release that builds its catalog otherwise keeps its own way.
  if (typeof Registry.prototype.loadBuiltInModels !== 'function') return ModelRegistry.inMemory(authStorage)
  let Sharing = sharing.get(ModelRegistry)
  if (Sharing === undefined) {
    let built: Model<string>[] | undefined
    Sharing = class extends Registry {
      constructor(authStorage: AuthStorage) {
        super(authStorage, undefined)
      }
      override loadBuiltInModels(overrides: unknown, modelOverrides: unknown): Model<string>[] {
        if (!isEmptyMap(overrides) || !isEmptyMap(modelOverrides)) return super.loadBuiltInModels!(overrides, modelOverrides)
        return [...(built ??= super.loadBuiltInModels!(overrides, modelOverrides))]
      }
    }
    sharing.set(ModelRegistry, Sharing)
  }
  return new Sharing(authStorage) as ModelRegistry
}

const isEmptyMap = (value: unknown) => value instanceof Map && value.size === 0

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
