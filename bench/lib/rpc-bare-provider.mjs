// Bare `pi --mode rpc`'s model, as hand-built harnesses script it (pi-lens): an extension that registers a
// provider whose stream answers the standard turn's steps in order, inside the child, with no harness.
import { createAssistantMessageEventStream } from '@mariozechner/pi-ai'
import { BENCH_RPC_MODEL } from './rpc-bare-model.mjs'
import { scriptedStream } from './scripted-stream.mjs'
import { standardSteps } from './standard.mjs'

export default function provider(pi) {
  const steps = standardSteps()
  let next = 0
  pi.registerProvider(BENCH_RPC_MODEL.provider, {
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'scripted',
    api: BENCH_RPC_MODEL.api,
    models: [BENCH_RPC_MODEL],
    streamSimple: (model) => scriptedStream(createAssistantMessageEventStream, model, steps[next++] ?? [{ type: 'text', text: 'script exhausted' }]),
  })
}
