import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/fixtures/**', 'test/consumer/**'],
    setupFiles: ['./environment/setup.ts', './test/support/network-audit.ts'],
    // Fails the run if any file opened a socket beyond loopback: the suite proves it stays offline.
    globalSetup: ['./test/support/network-audit-global.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
