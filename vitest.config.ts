import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { piResolveAliases, usePiBundle } from './environment/plugin.js'

// The files that pack the package, install it, start `pi`, or start a Vitest or npm install of their own: minutes each
// on a loaded 2-core machine. They are the `e2e` project (`npm run test:e2e`); `npm test` runs `unit`,
// every other file. A new file that does any of those belongs in this list.
const END_TO_END = [
  'test/consumer.test.ts',
  'test/global-setup.test.ts',
  'test/isolate.test.ts',
  'test/warm-workers.test.ts',
  'test/line-types.test.ts',
  'test/watch.test.ts',
  'test/readme.test.ts',
  'test/docs-run.test.ts',
  'test/attach-sessions.test.ts',
  'test/hangs-in-vitest.test.ts',
  // Start the real `pi` CLI, or `init` a project and run its Vitest.
  'test/process-depth.test.ts',
  'test/cli-init.test.ts',
  'test/sandbox/**/*.test.ts',
]

// The workers import Pi from its bundle, as pi()'s do (test/pi-bundle.test.ts runs Pi's own files too).
await usePiBundle()

export default defineConfig({
  // The suite imports Pi by the 0.73 names; on the current line they load the running Pi, as pi() does.
  resolve: { alias: piResolveAliases() },
  test: {
    exclude: ['**/node_modules/**', 'test/fixtures/**', 'test/consumer/**'],
    setupFiles: ['./environment/setup.ts', './test/support/network-audit.ts'],
    // Fails the run if any file opened a socket beyond loopback: the suite proves it stays offline.
    globalSetup: ['./test/support/network-audit-global.ts'],
    // Hang guards, not speed checks: several tests run a whole Vitest or npm install in a fixture
    // project, which can take minutes on a loaded 2-core machine.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    // Vitest's default leaves one core to its main process: one worker on a 2-core machine. The longest
    // files (watch, consumer, isolate) mostly wait on the Vitest and npm processes they start, so a
    // second worker runs other files meanwhile (on 2 cores: 7.7 → 6.2 minutes, measured on one machine).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Each project takes the options above (arrays such as `exclude` are added to, not replaced).
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: END_TO_END } },
      { extends: true, test: { name: 'e2e', include: END_TO_END } },
    ],
  },
})
