// The spec's model block as the model the session reports and the models its registry lists (never contacted).
import type { ModelMock } from './spec/types.js'
import { SCRIPTED_MODEL } from '../pi/index.js'
import type { Model } from '../pi/types.js'

/** The model the session reports: the spec's current model (from its available models when listed). */
export function modelFor(mock: ModelMock | undefined): { model: Model<string>; available: Model<string>[] } {
  const available = (mock?.available_models ?? []).map(
    (m): Model<string> => ({
      ...SCRIPTED_MODEL,
      id: m.id,
      name: m.name,
      provider: m.provider,
      reasoning: m.reasoning ?? false,
      input: (m.input ?? ['text']) as Model<string>['input'],
      contextWindow: m.context_window ?? SCRIPTED_MODEL.contextWindow,
      maxTokens: m.max_tokens ?? SCRIPTED_MODEL.maxTokens,
      cost: { ...SCRIPTED_MODEL.cost, input: m.cost?.input ?? 0, output: m.cost?.output ?? 0 },
    }),
  )
  const current = mock?.current
  if (!current) return { model: SCRIPTED_MODEL, available }
  const listed = available.find((m) => m.provider === current.provider && m.id === current.model_id)
  const model: Model<string> = listed ?? {
    ...SCRIPTED_MODEL,
    ...(current.provider ? { provider: current.provider } : {}),
    ...(current.model_id ? { id: current.model_id } : {}),
    ...(current.name ? { name: current.name } : {}),
    // A level other than off needs a reasoning model, or Pi clamps it.
    reasoning: (mock?.thinking_level ?? 'off') !== 'off',
  }
  return { model, available }
}
