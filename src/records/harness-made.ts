// Which objects the harness made (records, Pi's events and messages it recorded), so that snapshots
// normalise those and leave the user's own objects as they are. One set per process: the serializer and
// the sessions may load this module twice.
import { processSlot } from '../shared/global-slot.js'

const made = processSlot('harness-made', () => new WeakSet<object>())

/** Marks `value` as made by the harness; returns it. */
export function harnessMade<T extends object>(value: T): T {
  made.get().add(value)
  return value
}

export function isHarnessMade(value: unknown): value is object {
  return typeof value === 'object' && value !== null && made.get().has(value)
}

/** An array whose pushed items are marked as made by the harness (it prints and compares as a plain array). */
export function recordList<T extends object>(): T[] {
  const list: T[] = []
  Object.defineProperty(list, 'push', {
    value: (...items: T[]) => Array.prototype.push.apply(list, items.map(harnessMade)),
    enumerable: false,
  })
  return harnessMade(list)
}
