import { defineConfig } from 'vitest/config'

export default defineConfig({
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
  },
})
