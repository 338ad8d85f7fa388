import { basename, dirname, join } from 'node:path'
import { defineConfig } from 'vitest/config'
import { findPiLine, pi } from 'vitest-environment-pi/plugin'

export default defineConfig({
  plugins: [pi({ extensions: ['./extensions/guard.ts'], mockUI: { confirm: true } })],
  test: {
    include: ['tests/**/*.test.ts', 'failing/**/*.test.ts'],
    // Pi's own objects (a message) differ between Pi's lines: one snapshot file per line.
    resolveSnapshotPath: (test, extension) => join(dirname(test), '__snapshots__', findPiLine().scope, basename(test) + extension),
    coverage: { include: ['extensions/**'], reporter: ['json'] },
  },
})
