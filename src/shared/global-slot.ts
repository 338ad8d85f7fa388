// State that must be one per process although the module holding it may load twice (the setup file
// and the test can get different instances): it lives on globalThis under a registered symbol.

const PREFIX = 'vitest-environment-pi:'

export interface GlobalSlot<T> {
  get(): T
  set(value: T): void
  /** Removes the value; the next get() finds the slot empty (or creates it anew with `init`). */
  clear(): void
}

/** The process-wide value named `name`: undefined until set. */
export function globalSlot<T>(name: string): GlobalSlot<T | undefined>
/** The process-wide value named `name`, created by `init` on first use. */
export function globalSlot<T>(name: string, init: () => T): GlobalSlot<T>
export function globalSlot<T>(name: string, init?: () => T): GlobalSlot<T | undefined> {
  const key = Symbol.for(`${PREFIX}${name}`)
  const holder = globalThis as Record<symbol, unknown>
  return {
    get: () => (key in holder || !init ? holder[key] : (holder[key] = init())) as T | undefined,
    set: (value) => void (holder[key] = value),
    clear: () => void delete holder[key],
  }
}

/** Whether `key` names one of the harness's own process-wide values (a file's reset leaves them alone). */
export function isGlobalSlot(key: string | symbol): boolean {
  return typeof key === 'symbol' && Symbol.keyFor(key)?.startsWith(PREFIX) === true
}
