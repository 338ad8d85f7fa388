// Fails every attempt to reach an address beyond loopback, so a test can never reach the real network by
// accident: TCP connections, UDP datagrams, DNS lookups and queries; a Worker started meanwhile carries
// the same guard into its thread, and a child process into any Node it runs.
import { fileURLToPath } from 'node:url'
import workerThreads from 'node:worker_threads'
import { builtinExportsChanged, syncBuiltinExports } from '../shared/builtin-exports.js'
import { childProcessSites } from './network-children.js'
import { dnsSites } from './network-dns.js'
import { guards, refuse, type Guard, type Method, type Site } from './network-policy.js'
import { removeRefusedProgramsDirs } from './network-programs.js'
import { socketSites } from './network-sockets.js'
import { UNGUARDED_WORKER } from './refusing-proxy.js'

interface Patch {
  wrapper: Method
  /** The property as it was; undefined when it was inherited. */
  replaced: PropertyDescriptor | undefined
}

type Owner = Record<string, unknown>

let sites: Site[] | undefined
/** Our patch on top of each site, while a guard taken through this copy of the module is held. */
const patches = new Map<Site, Patch>()
/** The guards taken through this copy: its patches come off when the last is released. */
const held = new Set<Guard>()

// Patching and unpatching re-syncs every builtin's ESM exports (syncBuiltinESMExports), about half a ms a
// session outside Vitest, where each session takes and releases the guard. So the patches come off a
// moment after the last release: sessions run back to back reuse them, inert (they pass everything) in
// between. The real timer functions, as a test with fake timers replaces the global ones.
export const LINGER_MS = 100
const { setTimeout: later, clearTimeout: cancel } = globalThis
let unpatchTimer: ReturnType<typeof later> | undefined

/**
 * Refuses, while held, whatever would reach an address other than 127.0.0.0/8, ::1 and `localhost`
 * (unix sockets and pipes pass), before anything is resolved or sent; every refusal is an error with
 * code ENETUNREACH and the message `Network access is disabled in tests: <target>`, and `onBlocked`
 * gets `<target>`:
 * - a TCP connection (net, tls, http, https, undici, fetch): `<host>:<port>`, as an 'error' on the socket;
 *   one with a `lookup` of its own when that lookup resolves beyond loopback; an HTTP/2 session at once;
 * - a UDP send or connect: `<host>:<port> (UDP)`, to the callback or as an 'error'; a multicast join:
 *   `<group> (UDP multicast)`, thrown;
 * - a DNS call of `dns`, `dns/promises` or a Resolver: `<name> (DNS <method>)`, to the callback or as a
 *   rejection; every resolver query is refused (even for `localhost`), a lookup only when it would ask
 *   the network (not for an address or `localhost`);
 * - a Worker starts with this guard preloaded (`--import`, or loaded first by the code of an `eval` one), for
 *   its whole life;
 * - a child process gets the guard in NODE_OPTIONS: any Node it runs is guarded for its whole life.
 * The stand-ins for refused programs that children found first on PATH are removed when no guard is held.
 * Host names are never resolved to decide. Guards nest: the patches stay until every returned release has
 * been called; 100 ms later (unless a guard is taken again) they put back exactly the properties they
 * replaced, passing everything meanwhile.
 */
export function guardNetwork(onBlocked?: (target: string) => void): () => void {
  const guard: Guard = { onBlocked }
  guards.add(guard)
  held.add(guard)
  if (unpatchTimer !== undefined) cancel(unpatchTimer)
  unpatchTimer = undefined
  sites ??= [...socketSites(), ...dnsSites(), { owner: workerThreads, key: 'Worker', wrap: guardWorker }, ...childProcessSites(loadable() ? `--import=${preload()}` : undefined)]
  for (const site of sites) {
    // Patched afresh whenever ours is not on top: the property may have been replaced or wrapped since.
    if ((site.owner as Owner)[site.key] === patches.get(site)?.wrapper) continue
    patches.set(site, patch(site))
    builtinExportsChanged()
  }
  // `import { lookup } from 'node:dns'` sees the module's properties only through this.
  syncBuiltinExports()
  return () => {
    guards.delete(guard)
    held.delete(guard)
    // No child is started guarded until a guard is taken again, which makes them anew: a worker that its pool
    // ends never reaches the `exit` event that would remove them.
    if (guards.size === 0) removeRefusedProgramsDirs()
    if (held.size > 0 || patches.size === 0 || unpatchTimer !== undefined) return
    unpatchTimer = later(unpatch, LINGER_MS)
    unpatchTimer.unref?.()
  }
}

/** Puts back exactly the properties the patches replaced, unless a guard is held again. */
function unpatch(): void {
  unpatchTimer = undefined
  if (held.size > 0) return
  for (const [{ owner, key }, { wrapper, replaced }] of patches) {
    // Buried under someone else's patch: left there, where it passes everything while no guard is held.
    if ((owner as Owner)[key] !== wrapper) continue
    if (replaced) Object.defineProperty(owner, key, replaced)
    else delete (owner as Owner)[key]
  }
  patches.clear()
  builtinExportsChanged()
  syncBuiltinExports()
}

// Each patch calls through to what it replaced, and passes everything while no guard is held.
function patch({ owner, key, wrap }: Site): Patch {
  const replaced = Object.getOwnPropertyDescriptor(owner, key)
  const wrapper = wrap((owner as Owner)[key] as Method)
  Object.defineProperty(owner, key, { value: wrapper, writable: true, enumerable: replaced?.enumerable ?? false, configurable: true })
  return { wrapper, replaced }
}

type WorkerClass = typeof workerThreads.Worker

// A worker thread has its own net, dgram and dns: it gets the guard by importing this module before its own
// code. Without explicit execArgv a Worker inherits the parent's; those flags are passed on, except the ones
// Node refuses to pass explicitly (process-wide ones, like --max-old-space-size), which are dropped.
function guardWorker(next: Method): Method {
  const Original = next as unknown as WorkerClass
  return class Worker extends Original {
    constructor(filename: string | URL, options: workerThreads.WorkerOptions = {}) {
      // Unguarded, the proxy's own thread, or execArgv Node will reject (not an array) before any thread starts.
      if (guards.size === 0 || UNGUARDED_WORKER in options || (options.execArgv !== undefined && !Array.isArray(options.execArgv))) {
        super(filename, options)
        return
      }
      const execArgv = withGuard(options.execArgv ?? process.execArgv)
      // Node skips --import for the code of an eval worker that is not an ES module: that code loads the guard itself.
      const code = options.eval ? guardedEval(String(filename)) : filename
      try {
        super(code, { ...options, execArgv })
      } catch (error) {
        const refused = options.execArgv ? undefined : refusedFlags(error)
        if (!refused) throw error
        super(code, { ...options, execArgv: execArgv.filter((flag) => !refused.includes(flag)) })
      }
    }
  } as unknown as Method
}

// False only where the harness itself runs from TypeScript (its own tests), which another thread or process cannot import.
const loadable = () => /^file:.*\.m?js$/.test(import.meta.url)

/** A module that takes the guard for the thread or process that imports it first. */
const preload = () => `data:text/javascript,${encodeURIComponent(`import { guardNetwork } from ${JSON.stringify(import.meta.url)}; guardNetwork()`)}`

function withGuard(execArgv: readonly string[]): string[] {
  // Never start a worker unguarded.
  if (!loadable()) {
    const self = import.meta.url.startsWith('file:') ? fileURLToPath(import.meta.url) : import.meta.url
    throw refuse(`a Worker (the network guard cannot follow it into the thread: ${self} is not JavaScript a worker can import)`)
  }
  return execArgv.includes(preload()) ? [...execArgv] : [...execArgv, '--import', preload()]
}

// Eval code that is a CommonJS script has `require`; an ES module has none, and Node preloads the guard for it.
function guardedEval(code: string): string {
  if (!process.features.require_module) {
    throw refuse('a Worker with eval: true (the network guard cannot load into its code: this Node cannot require() an ES module; Node 20.19 and 22.12 can)')
  }
  const load = `typeof require === 'function' && require(${JSON.stringify(fileURLToPath(import.meta.url))}).guardNetwork();`
  // A "use strict" directive must stay first; the guard goes on the same line, keeping the code's line numbers.
  const directive = /^\s*(['"])use strict\1;?/.exec(code)?.[0] ?? ''
  return `${directive}${load}${code.slice(directive.length)}`
}

// Node names the flags it refused only in the message: "Initiated Worker with invalid execArgv flags: a, b".
function refusedFlags(error: unknown): string[] | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (code !== 'ERR_WORKER_INVALID_EXEC_ARGV' || typeof message !== 'string') return undefined
  const flags = message.split(': ')[1]?.split(', ')
  return flags && flags.length > 0 ? flags : undefined
}
