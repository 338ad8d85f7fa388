// The guard's patches on DNS: every lookup and query of the dns module, in callback and promise form, and
// of every Resolver. A resolver query is a packet to the DNS server whatever the name, even `localhost`;
// a lookup sends none for an address or `localhost` (answered from the hosts file), so those pass.
import dns from 'node:dns'
import net from 'node:net'
import { failLater, guards, isLoopback, refuse, type Method, type Site } from './network-policy.js'

const QUERIES = /^(lookup|lookupService|reverse|resolve\w*)$/

type Form = 'callback' | 'promise'

export function dnsSites(): Site[] {
  const owners: [object, Form][] = [
    [dns, 'callback'],
    [dns.Resolver.prototype, 'callback'],
    [dns.promises, 'promise'],
    [dns.promises.Resolver.prototype, 'promise'],
  ]
  return owners.flatMap(([owner, form]) =>
    Object.getOwnPropertyNames(owner)
      .filter((key) => QUERIES.test(key) && typeof (owner as Record<string, unknown>)[key] === 'function')
      .map((key) => ({ owner, key, wrap: (next: Method) => guardDns(next, key, form) })),
  )
}

// A refused call fails as an unreachable DNS server would: asynchronously, to the callback or as a rejection.
// Arguments Node would reject (no callback, a name that is not a string) go on to Node's own checks.
function guardDns(next: Method, method: string, form: Form): Method {
  return function query(this: unknown, ...args: unknown[]) {
    const target = guards.size === 0 ? undefined : queried(method, args)
    const callback = args.findLast((arg) => typeof arg === 'function') as ((error: Error) => void) | undefined
    if (target === undefined || (form === 'callback' && !callback)) return next.apply(this, args)
    const error = refuse(`${target} (DNS ${method})`, { hostname: args[0] })
    if (form === 'promise') return Promise.reject(error)
    failLater(() => callback!(error))
    return undefined
  }
}

/** What a call would ask the network about, or undefined when it asks nothing (or Node will reject it). */
function queried(method: string, [name, port]: unknown[]): string | undefined {
  if (typeof name !== 'string') return undefined
  if (method === 'lookup') return name === '' || net.isIP(name) !== 0 || isLoopback(name) ? undefined : name
  if (method === 'lookupService') return net.isIP(name) === 0 || isLoopback(name) ? undefined : `${name}:${String(port)}`
  return name
}
