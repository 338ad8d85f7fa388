// Fails every attempt to reach an address beyond loopback, so a test can never reach the real network by
// accident: TCP connections, UDP datagrams, DNS lookups and queries.
import { syncBuiltinESMExports } from 'node:module'
import { dnsSites } from './network-dns.js'
import { guards, type Guard, type Method, type Site } from './network-policy.js'
import { socketSites } from './network-sockets.js'

interface Patch {
  wrapper: Method
  /** The property as it was; undefined when it was inherited. */
  replaced: PropertyDescriptor | undefined
}

type Owner = Record<string, unknown>

let sites: Site[] | undefined
/** Our patch on top of each site, while a guard is held. */
const patches = new Map<Site, Patch>()

/**
 * Refuses, while held, whatever would reach an address other than 127.0.0.0/8, ::1 and `localhost`
 * (unix sockets and pipes pass), before anything is resolved or sent; every refusal is an error with
 * code ENETUNREACH and the message `Network access is disabled in tests: <target>`, and `onBlocked`
 * gets `<target>`:
 * - a TCP connection (net, tls, http, https, undici, fetch): `<host>:<port>`, as an 'error' on the socket;
 * - a UDP send or connect: `<host>:<port> (UDP)`, to the callback or as an 'error'; a multicast join:
 *   `<group> (UDP multicast)`, thrown;
 * - a DNS call of `dns`, `dns/promises` or a Resolver: `<name> (DNS <method>)`, to the callback or as a
 *   rejection; every resolver query is refused (even for `localhost`), a lookup only when it would ask
 *   the network (not for an address or `localhost`);
 * Host names are never resolved to decide. Guards nest: the patches stay until every returned release has
 * been called, which puts back exactly the properties they replaced.
 */
export function guardNetwork(onBlocked?: (target: string) => void): () => void {
  const guard: Guard = { onBlocked }
  guards.add(guard)
  sites ??= [...socketSites(), ...dnsSites()]
  let patched = false
  for (const site of sites) {
    // Patched afresh whenever ours is not on top: the property may have been replaced or wrapped since.
    if ((site.owner as Owner)[site.key] === patches.get(site)?.wrapper) continue
    patches.set(site, patch(site))
    patched = true
  }
  // `import { lookup } from 'node:dns'` sees the module's properties only through this.
  if (patched) syncBuiltinESMExports()
  return () => {
    guards.delete(guard)
    if (guards.size > 0 || patches.size === 0) return
    for (const [{ owner, key }, { wrapper, replaced }] of patches) {
      // Buried under someone else's patch: left there, where it passes everything while no guard is held.
      if ((owner as Owner)[key] !== wrapper) continue
      if (replaced) Object.defineProperty(owner, key, replaced)
      else delete (owner as Owner)[key]
    }
    patches.clear()
    syncBuiltinESMExports()
  }
}

// Each patch calls through to what it replaced, and passes everything while no guard is held.
function patch({ owner, key, wrap }: Site): Patch {
  const replaced = Object.getOwnPropertyDescriptor(owner, key)
  const wrapper = wrap((owner as Owner)[key] as Method)
  Object.defineProperty(owner, key, { value: wrapper, writable: true, enumerable: replaced?.enumerable ?? false, configurable: true })
  return { wrapper, replaced }
}
