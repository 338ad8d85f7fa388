// The same project without the plugin: the environment by name plus the setup file.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    environment: 'pi',
    environmentOptions: { pi: { extensions: ['./extensions/guard.ts'], mockUI: { confirm: true } } },
    setupFiles: ['vitest-environment-pi/setup'],
    include: ['tests/**/*.test.ts'],
  },
})
