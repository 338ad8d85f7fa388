// The same project without the plugin: the environment by name plus the setup file.
import { basename, dirname, join } from 'node:path'
import { defineConfig } from 'vitest/config'
import { findPiLine } from 'vitest-environment-pi/plugin'

export default defineConfig({
  test: {
    environment: 'pi',
    environmentOptions: { pi: { extensions: ['./extensions/guard.ts'], mockUI: { confirm: true } } },
    setupFiles: ['vitest-environment-pi/setup'],
    include: ['tests/**/*.test.ts'],
    // Pi's own objects (a message) differ between Pi's lines: one snapshot file per line.
    resolveSnapshotPath: (test, extension) => join(dirname(test), '__snapshots__', findPiLine().scope, basename(test) + extension),
  },
})
