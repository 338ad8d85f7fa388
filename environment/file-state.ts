// What a test file can leave behind in a worker it shares with later files (isolate: false): process.env,
// the working directory, globalThis, its timers and its process listeners. Captured before the file and
// put back after it. Plain Node, no Vitest: the Vitest-aware steps live in file-reset.ts.

/** Whether the code that called `skip` lives in a dependency or in Node itself (not the file's own). */
export function calledFromLibrary(skip: Function): boolean {
  const { stackTraceLimit, prepareStackTrace } = Error
  // Call sites, not a formatted stack: formatting would run Vite's source-map remapping.
  Error.stackTraceLimit = 1
  Error.prepareStackTrace = (_error, sites) => sites
  const holder: { stack?: NodeJS.CallSite[] } = {}
  try {
    Error.captureStackTrace(holder, skip)
    const file = holder.stack?.[0]?.getFileName() ?? ''
    return file.includes('/node_modules/') || file.startsWith('node:')
  } finally {
    Error.stackTraceLimit = stackTraceLimit
    Error.prepareStackTrace = prepareStackTrace
  }
}

/** Remembers process.env; the returned function removes added keys and restores changed or removed ones. */
export function captureEnv(): () => void {
  const env = process.env
  const saved = { ...env }
  return () => {
    // A file may have replaced the object itself.
    if (process.env !== env) process.env = env
    for (const key of Object.keys(env)) if (!Object.hasOwn(saved, key)) delete env[key]
    for (const [key, value] of Object.entries(saved)) if (env[key] !== value) env[key] = value
  }
}

/** Remembers the working directory; a file that changed it (forks only: worker threads cannot) gets it back. */
export function captureCwd(): () => void {
  const cwd = process.cwd()
  return () => {
    if (process.cwd() !== cwd) process.chdir(cwd)
  }
}

// Object.is: globalThis.NaN is a value too.
const sameDescriptor = (a: PropertyDescriptor, b: PropertyDescriptor) =>
  Object.is(a.value, b.value) && a.get === b.get && a.set === b.set && a.writable === b.writable && a.enumerable === b.enumerable

/**
 * Remembers globalThis's own properties; the returned function deletes the ones added since and puts
 * back replaced or deleted ones. `keep(key)` names properties that are not the file's to undo.
 */
export function captureGlobals(keep: (key: string | symbol) => boolean): () => void {
  const target = globalThis as Record<string | symbol, unknown>
  const saved = new Map(Reflect.ownKeys(target).map((key) => [key, Reflect.getOwnPropertyDescriptor(target, key)!]))
  return () => {
    for (const key of Reflect.ownKeys(target)) {
      if (saved.has(key) || keep(key)) continue
      const descriptor = Reflect.getOwnPropertyDescriptor(target, key)!
      if (descriptor.configurable) delete target[key]
      else if (descriptor.writable) target[key] = undefined
    }
    for (const [key, before] of saved) {
      if (keep(key)) continue
      const now = Reflect.getOwnPropertyDescriptor(target, key)
      if (now && sameDescriptor(now, before)) continue
      if (!now || now.configurable) Reflect.defineProperty(target, key, before)
      else if (now.writable && 'value' in before) target[key] = before.value
    }
  }
}

type TimerFunction = (callback: (...args: any[]) => unknown, ms?: number, ...args: any[]) => unknown
type ClearFunction = (handle: unknown) => void

// The wrappers keep what Node hangs on the originals (util.promisify.custom, __promisify__).
function withOwnProperties<T extends Function>(wrapper: T, original: Function): T {
  for (const key of Reflect.ownKeys(original)) {
    if (key === 'length' || key === 'name' || key === 'prototype') continue
    Reflect.defineProperty(wrapper, key, Reflect.getOwnPropertyDescriptor(original, key)!)
  }
  return wrapper
}

/**
 * Tracks the timeouts and intervals the file's own code starts (not its dependencies', which may keep
 * one timer for the whole worker); the returned function clears those still pending and unwraps.
 */
export function trackTimers(): () => void {
  const target = globalThis as unknown as Record<string, unknown>
  const originals = {
    setTimeout: target.setTimeout as TimerFunction,
    setInterval: target.setInterval as TimerFunction,
    clearTimeout: target.clearTimeout as ClearFunction,
    clearInterval: target.clearInterval as ClearFunction,
  }
  const timeouts = new Set<unknown>()
  const intervals = new Set<unknown>()
  const wrappers: Record<string, Function> = {}

  wrappers.setTimeout = withOwnProperties(function setTimeout(this: unknown, callback, ms, ...args) {
    if (typeof callback !== 'function' || calledFromLibrary(wrappers.setTimeout!)) return originals.setTimeout.call(this, callback, ms, ...args)
    const handle = originals.setTimeout.call(
      this,
      function (this: unknown, ...callArgs: unknown[]) {
        timeouts.delete(handle)
        return callback.apply(this, callArgs)
      },
      ms,
      ...args,
    )
    timeouts.add(handle)
    return handle
  } as TimerFunction, originals.setTimeout)
  wrappers.setInterval = withOwnProperties(function setInterval(this: unknown, callback, ms, ...args) {
    const handle = originals.setInterval.call(this, callback, ms, ...args)
    if (!calledFromLibrary(wrappers.setInterval!)) intervals.add(handle)
    return handle
  } as TimerFunction, originals.setInterval)
  wrappers.clearTimeout = withOwnProperties(function clearTimeout(this: unknown, handle: unknown) {
    timeouts.delete(handle)
    return originals.clearTimeout.call(this, handle)
  }, originals.clearTimeout)
  wrappers.clearInterval = withOwnProperties(function clearInterval(this: unknown, handle: unknown) {
    intervals.delete(handle)
    return originals.clearInterval.call(this, handle)
  }, originals.clearInterval)

  Object.assign(target, wrappers)
  return () => {
    for (const [name, wrapper] of Object.entries(wrappers)) {
      if (target[name] === wrapper) target[name] = originals[name as keyof typeof originals]
    }
    for (const handle of timeouts) originals.clearTimeout(handle)
    for (const handle of intervals) originals.clearInterval(handle)
    timeouts.clear()
    intervals.clear()
  }
}

const ADDERS = ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener'] as const
type Listener = (...args: any[]) => void

/**
 * Tracks the process listeners the file's own code adds; the returned function removes those still
 * attached. Listeners a dependency installs for the whole worker (signal-exit and the like) stay.
 */
export function trackProcessListeners(): () => void {
  const added: [string | symbol, Listener][] = []
  const own = new Map(ADDERS.map((name) => [name, Reflect.getOwnPropertyDescriptor(process, name)]))
  for (const name of ADDERS) {
    const original = process[name] as (this: NodeJS.Process, event: string | symbol, listener: Listener) => NodeJS.Process
    const wrapper = function (this: NodeJS.Process, event: string | symbol, listener: Listener) {
      if (!calledFromLibrary(wrapper)) added.push([event, listener])
      return original.call(this, event, listener)
    }
    Reflect.defineProperty(process, name, { value: wrapper, configurable: true, writable: true, enumerable: false })
  }
  return () => {
    for (const [name, descriptor] of own) {
      if (descriptor) Reflect.defineProperty(process, name, descriptor)
      else delete (process as unknown as Record<string, unknown>)[name]
    }
    // removeListener also finds a once() wrapper by the listener it wraps.
    for (const [event, listener] of added) process.removeListener(event, listener)
    added.length = 0
  }
}
