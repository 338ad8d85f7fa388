import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { piResolveAliases } from './environment/plugin.js'

export default defineConfig({
  // The suite imports Pi by the 0.73 names; on the current line they load the running Pi, as pi() does.
  resolve: { alias: piResolveAliases() },
  test: {
    include: ['test/**/*.test.ts'],
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
  },
})
