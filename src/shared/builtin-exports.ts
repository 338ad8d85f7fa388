// A property replaced on a builtin module (os.homedir, dns.lookup, …) reaches `import { name } from 'node:…'`
// only once Node re-syncs the builtins' ESM exports, which walks every builtin loaded (0.2–0.5 ms after Pi's
// import). Patches made together are synced once: each patcher notes its change, and whoever finishes the
// batch syncs before any other code runs.
import { syncBuiltinESMExports } from 'node:module'

let unsynced = false

/** Notes that a builtin's property was replaced or put back, which ESM importers do not see yet. */
export function builtinExportsChanged(): void {
  unsynced = true
}

/** Makes every change noted so far visible to ESM importers. */
export function syncBuiltinExports(): void {
  if (!unsynced) return
  unsynced = false
  syncBuiltinESMExports()
}
