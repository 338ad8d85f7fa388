import { defineConfig } from 'vitest/config'
import { pi } from 'vitest-environment-pi/plugin'

// The examples' suites, run as a user would run theirs: one plugin line.
export default defineConfig({
  plugins: [pi()],
  test: {
    root: import.meta.dirname,
    include: ['**/*.test.ts'],
    coverage: { include: ['**/*.ts'], exclude: ['**/*.test.ts', 'vitest.config.ts'], reporter: ['text'] },
  },
})
