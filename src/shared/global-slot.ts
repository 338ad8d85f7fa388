// State that must be one per process although the module holding it may load twice (the setup file
// and the test can get different instances): it lives on globalThis under a registered symbol.

/** The process-wide value named `name`, created by `init` on first use. */
export function globalSlot<T>(name: string, init: () => T): { get(): T; set(value: T): void } {
  const key = Symbol.for(`vitest-environment-pi:${name}`)
  const holder = globalThis as Record<symbol, unknown>
  return {
    get: () => (key in holder ? (holder[key] as T) : (holder[key] = init()) as T),
    set: (value) => void (holder[key] = value),
  }
}
