// Bare Pi: the same work as one harness session, done by hand with Pi's own API and nothing else.
// It is the floor a harness cannot beat: every step here is something the harness must also do.
// Pi is the line the harness runs (lib/pi-line.mjs); lines/<name>.mjs holds what differs between lines.
import { bareLine } from './pi-line.mjs'
import { scriptedStream as scripted } from './scripted-stream.mjs'

const {
  createAgentSession,
  createAssistantMessageEventStream,
  createBashToolDefinition,
  DefaultResourceLoader,
  modelServices,
  replaceStream,
  SessionManager,
  SettingsManager,
} = await bareLine()

export const BENCH_MODEL = {
  id: 'bench',
  name: 'Bench model',
  api: 'bench',
  provider: 'bench',
  baseUrl: 'http://127.0.0.1:9',
  reasoning: false,
  input: ['text'],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200_000,
  maxTokens: 16_384,
}

/** A stream carrying `content` as a provider would send it (lib/scripted-stream.mjs), with this line's constructor. */
export const scriptedStream = (model, content) => scripted(createAssistantMessageEventStream, model, content)

/**
 * Creates a bare session: everything in memory, the extension as an inline factory, bash's execute
 * replaced, the model replaced by `steps` (one assistant message each), extensions bound.
 */
export async function createBareSession({ cwd, agentDir, extension, bashAnswer, steps }) {
  const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } })
  const resourceLoader = new DefaultResourceLoader({
    cwd,
    agentDir,
    settingsManager,
    extensionFactories: [extension],
    noExtensions: true,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
  })
  await resourceLoader.reload()
  const bash = createBashToolDefinition(cwd)
  bash.execute = async (_toolCallId, params) => ({ content: [{ type: 'text', text: bashAnswer(params) }], details: undefined })
  const { session } = await createAgentSession({
    cwd,
    agentDir,
    model: BENCH_MODEL,
    thinkingLevel: 'off',
    ...(await modelServices(BENCH_MODEL)),
    settingsManager,
    resourceLoader,
    sessionManager: SessionManager.inMemory(cwd),
    customTools: [bash],
  })
  let next = 0
  replaceStream(session, (model) => scriptedStream(model, steps[next++] ?? [{ type: 'text', text: 'script exhausted' }]))
  const errors = []
  await session.bindExtensions({ onError: (error) => errors.push(error) })
  return { session, errors, stepsServed: () => next }
}

/**
 * Sends the prompt and waits until `agent_end` has reached subscribers (Pi delivers events on a queue).
 * On 1.x, prompt() resolves after `agent_settled`, which follows `agent_end`; the harness waits no longer.
 */
export async function bareTurn(session, prompt) {
  let unsubscribe
  const ended = new Promise((resolve) => {
    unsubscribe = session.subscribe((event) => {
      if (event.type === 'agent_end') resolve(event)
    })
  })
  await session.prompt(prompt)
  const end = await ended
  unsubscribe()
  return end
}

/** Fires `session_shutdown` (Pi's dispose does not) and releases the session. */
export async function disposeBare(session) {
  await session.extensionRunner.emit({ type: 'session_shutdown', reason: 'quit' })
  session.dispose()
}

/** Scenario (a) by hand: create, one turn, dispose. Returns the session's agent_end messages for checking. */
export async function bareStandardIteration(dirs, standard) {
  const { session, errors } = await createBareSession({ ...dirs, extension: standard.extension, bashAnswer: standard.bashAnswer, steps: standard.steps() })
  const end = await bareTurn(session, standard.prompt)
  await disposeBare(session)
  return { messages: end.messages, errors }
}
