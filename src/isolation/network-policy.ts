// What the network guard lets through (loopback) and how it refuses the rest, shared by every patch.
import net from 'node:net'
import { globalSlot } from '../shared/global-slot.js'
import { realSetImmediate } from '../shared/real-timers.js'

export type Method = (this: unknown, ...args: unknown[]) => unknown

/** A property the guard replaces while held: `wrap` gets what was there and returns the replacement. */
export interface Site {
  owner: object
  key: string
  wrap: (next: Method) => Method
}

export interface Guard {
  onBlocked: ((target: string) => void) | undefined
}

/**
 * The guards held in this thread; every patch passes everything while there are none. One set for every
 * copy of this module (a file's reset may evaluate it again): a function user code took from `dns` under
 * one copy must see the guards another copy holds.
 */
export const guards = globalSlot('network-guards', () => new Set<Guard>()).get()

const LOOPBACK = new net.BlockList()
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4')
LOOPBACK.addAddress('::1', 'ipv6')

/** 127.0.0.0/8, ::1 and `localhost`; any other name is not loopback (it is never resolved to find out). */
export function isLoopback(host: string): boolean {
  const address = host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  if (address === 'localhost') return true
  if (net.isIPv4(address)) return LOOPBACK.check(address, 'ipv4')
  if (net.isIPv6(address)) return LOOPBACK.check(address, 'ipv6')
  return false
}

/**
 * The error for a refused call (`Network access is disabled in tests: <target>`, code ENETUNREACH, plus
 * `fields`), reported at once to every guard held.
 */
export function refuse(target: string, fields: Record<string, unknown> = {}): Error {
  for (const guard of guards) guard.onBlocked?.(target)
  return Object.assign(new Error(`Network access is disabled in tests: ${target}`), { code: 'ENETUNREACH', ...fields })
}

/** Runs `fail` after I/O, like a real network failure, so the caller has attached its listeners by then. */
export function failLater(fail: () => void): void {
  realSetImmediate(fail)
}
