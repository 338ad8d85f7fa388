import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'

/** Registers a model provider (and its OAuth login): Pi keeps both in pi-ai's process-wide registries. */
export default function provider(pi: ExtensionAPI) {
  pi.registerProvider('leaky', {
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'LEAKY_KEY',
    api: 'leaky-api',
    models: [
      { id: 'leaky-1', name: 'Leaky', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 },
    ],
    streamSimple: () => {
      throw new Error('never called')
    },
    oauth: {
      name: 'Leaky login',
      login: async () => ({ refresh: 'r', access: 'a', expires: 0 }),
      refreshToken: async (credentials) => credentials,
      getApiKey: () => 'a',
    },
  })
}
