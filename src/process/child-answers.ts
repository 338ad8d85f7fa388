// What the harness answers the `pi` child: its harness extension's asks over IPC (the model's answer, a mocked
// tool's result, a call's progress) and the extensions' dialogs and UI calls over RPC, by the session's mocks.
import type { SessionMocks } from '../mocks/open.js'
import type { Playbook } from '../model/playbook.js'
import { providerRequest } from '../pi/index.js'
import { describeReceived, messageOf } from '../shared/errors.js'
import type { Problems } from '../session/problems.js'
import type { PiChild } from './child.js'
import type { ChildMessage } from './protocol.js'
import type { RpcRecord } from './rpc-client.js'
import type { ToolCallWatch } from './turn-watch.js'

/** What the child's harness extension asks: the model's answer, a mocked tool's result, a call's progress. */
export async function answerChild(message: ChildMessage, { playbook, mocks, calls }: { playbook: Playbook; mocks: SessionMocks; calls: ToolCallWatch }): Promise<unknown> {
  switch (message.kind) {
    case 'model': {
      const controller = new AbortController()
      calls.modelRequests.set(message.id, controller)
      try {
        return await playbook.answer(providerRequest(message.context), controller.signal).result()
      } finally {
        calls.modelRequests.delete(message.id)
      }
    }
    case 'abort-model':
      return void calls.modelRequests.get(message.id)?.abort()
    case 'tool':
      return mocks.answerTool(message.toolName, message.toolCallId, message.params, undefined)
    case 'tool-called':
      return void calls.called.add(message.toolCallId)
    case 'tool-ran':
      return void calls.ran.add(message.toolCallId)
    default:
      return undefined
  }
}

/** A dialog or UI call of an extension in the child, answered and recorded by the session's mock UI. */
export async function answerDialog(request: RpcRecord, mocks: SessionMocks, child: PiChild, problems: Problems): Promise<void> {
  const { ui } = mocks
  const id = request.id
  const opts = typeof request.timeout === 'number' ? { timeout: request.timeout } : undefined
  const reply = (fields: Record<string, unknown>) => child.rpc.send({ type: 'extension_ui_response', id, ...fields })
  const str = (key: string) => request[key] as string
  try {
    switch (request.method) {
      case 'confirm':
        return reply({ confirmed: await ui.confirm(str('title'), str('message'), opts) })
      case 'select': {
        const value = await ui.select(str('title'), request.options as string[], opts)
        return reply(value === undefined ? { cancelled: true } : { value })
      }
      case 'input': {
        const value = await ui.input(str('title'), str('placeholder'), opts)
        return reply(value === undefined ? { cancelled: true } : { value })
      }
      case 'editor': {
        const value = await ui.editor(str('title'), str('prefill'))
        return reply(value === undefined ? { cancelled: true } : { value })
      }
      case 'notify':
        return ui.notify(str('message'), request.notifyType as 'info' | undefined)
      case 'setStatus':
        return ui.setStatus(str('statusKey'), request.statusText as string | undefined)
      case 'setWidget':
        return ui.setWidget(str('widgetKey'), request.widgetLines as string[] | undefined, request.widgetPlacement === undefined ? undefined : { placement: request.widgetPlacement as 'aboveEditor' })
      case 'setTitle':
        return ui.setTitle(str('title'))
      case 'set_editor_text':
        return ui.setEditorText(str('text'))
      default:
        problems.report(new Error(`The pi process sent an extension UI request of an unknown method ${describeReceived(request.method)}`))
    }
  } catch (error) {
    // The mock UI reported its problem (strict, out of answers); Pi's dialog must not wait forever for it.
    if (['confirm', 'select', 'input', 'editor'].includes(String(request.method))) reply({ cancelled: true })
    if (!(error instanceof Error)) problems.report(new Error(messageOf(error)))
  }
}
