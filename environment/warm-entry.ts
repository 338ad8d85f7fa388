// The entry of a test file's worker started ahead (warm-workers.ts): while the file before it runs, it enters
// the file's isolation and imports the harness with Pi, then loads Vitest's own worker entry (the argument
// after this file's), which waits for the file. The file finds what it would import already loaded.
import { pathToFileURL } from 'node:url'
import { enterIsolationAhead } from '../src/isolation/isolation.js'
import { processSlot } from '../src/shared/global-slot.js'

const [vitestEntry] = process.argv.splice(2, 1)
if (vitestEntry === undefined) throw new Error('vitest-environment-pi: a warm worker needs the path of Vitest\'s worker entry')
// As in a worker Vitest starts itself.
process.argv[1] = vitestEntry
// A worker never taken: the pool disconnects it when the run ends (or the run's process is gone), and it
// exits, its exit hooks removing the temp dirs it made.
process.once('disconnect', () => process.exit())
try {
  // Isolation first: Pi's modules and their dependencies take Node's builtins as the file would have them.
  await enterIsolationAhead()
  await import('../src/index.js')
  // When it was ready: what a file can read of the worker it was given.
  processSlot('warm-worker', () => ({ readyAt: Date.now() })).get()
} catch {
  // Left to the file: its own import of the harness throws the same error where a test reports it.
}
await import(pathToFileURL(vitestEntry).href)
