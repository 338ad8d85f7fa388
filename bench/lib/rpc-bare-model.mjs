// The model bare `pi --mode rpc` is started with (`--provider bench-rpc --model bench`), registered by its provider extension.
export const BENCH_RPC_MODEL = {
  id: 'bench',
  name: 'Bench model',
  api: 'openai-completions',
  provider: 'bench-rpc',
  reasoning: false,
  input: ['text'],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200_000,
  maxTokens: 16_384,
}
