// /bookmark <name>: remembers the conversation's place in the session itself (an entry), so a resumed
// or forked session knows its bookmarks again; /bookmarks lists them.
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'

export default function bookmarks(pi: ExtensionAPI) {
  let names: string[] = []

  pi.on('session_start', (_event, ctx) => {
    names = ctx.sessionManager
      .getBranch()
      .flatMap((entry) => (entry.type === 'custom' && entry.customType === 'bookmark' ? [(entry.data as { name: string }).name] : []))
  })

  pi.registerCommand('bookmark', {
    description: 'Bookmark this point of the conversation',
    handler: async (args, ctx) => {
      const name = args.trim()
      pi.appendEntry('bookmark', { name })
      names.push(name)
      ctx.ui.notify(`Bookmarked: ${name}`, 'info')
    },
  })

  pi.registerCommand('bookmarks', {
    description: 'List the bookmarks of this branch',
    handler: async (_args, ctx) => ctx.ui.notify(names.length > 0 ? names.join(', ') : 'No bookmarks', 'info'),
  })
}
