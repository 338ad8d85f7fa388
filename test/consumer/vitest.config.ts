import { defineConfig } from 'vitest/config'
import { pi } from 'vitest-environment-pi/plugin'

export default defineConfig({
  plugins: [pi({ extensions: ['./extensions/guard.ts'], mockUI: { confirm: true } })],
  test: {
    include: ['tests/**/*.test.ts', 'failing/**/*.test.ts'],
    coverage: { include: ['extensions/**'], reporter: ['json'] },
  },
})
