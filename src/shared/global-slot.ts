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
  return slotOn(globalThis, name, init)
}

/**
 * The value named `name` on `process`, created by `init` on first use: one for every realm of the process,
 * where a value on globalThis is one per realm (a VM pool's test file has its own globalThis, while the
 * environment runs outside it).
 */
export function processSlot<T>(name: string, init: () => T): GlobalSlot<T> {
  return slotOn(process, name, init) as GlobalSlot<T>
}

function slotOn<T>(owner: object, name: string, init?: () => T): GlobalSlot<T | undefined> {
  const key = Symbol.for(`${PREFIX}${name}`)
  const holder = owner as Record<symbol, unknown>
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
