// The guard's patches on child processes: every process started while a guard is held (spawn, exec,
// execFile, fork and their sync forms, a shell's commands included) gets the guard in NODE_OPTIONS, so
// that any Node it runs (`node -e`, `node -p`, a script, npm) refuses the network as this one does.
// Programs that are not Node (curl, a compiled binary) are beyond it.
import { ChildProcess } from 'node:child_process'
import { guards, type Method, type Site } from './network-policy.js'

type SpawnOptions = { envPairs?: string[] }

/** `preload`: the `--import=…` flag that loads the guard, or undefined where a child cannot load it. */
export function childProcessSites(preload: string | undefined): Site[] {
  if (preload === undefined) return []
  // Both forms end in one call with Node's normalised options, whose `envPairs` is the child's environment.
  // process.binding is deprecated only in documentation; spawnSync, execSync and execFileSync reach no public function.
  const spawnSync = (process as unknown as { binding(name: string): object }).binding('spawn_sync')
  return [ChildProcess.prototype, spawnSync].map((owner) => ({ owner, key: 'spawn', wrap: (next: Method) => guardSpawn(next, preload) }))
}

function guardSpawn(next: Method, preload: string): Method {
  return function spawn(this: unknown, options: unknown, ...rest: unknown[]) {
    const { envPairs } = (options ?? {}) as SpawnOptions
    if (guards.size > 0 && Array.isArray(envPairs)) (options as SpawnOptions).envPairs = withPreload(envPairs, preload)
    return next.call(this, options, ...rest)
  }
}

function withPreload(envPairs: string[], preload: string): string[] {
  const at = envPairs.findIndex((pair) => pair.startsWith('NODE_OPTIONS='))
  if (at === -1) return [...envPairs, `NODE_OPTIONS=${preload}`]
  if (envPairs[at]!.includes(preload)) return envPairs
  return envPairs.map((pair, index) => (index === at ? `${pair} ${preload}` : pair))
}
