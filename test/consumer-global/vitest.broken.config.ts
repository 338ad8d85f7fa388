import { defineConfig } from 'vitest/config'
import { pi } from 'vitest-environment-pi/plugin'

// A package that imports what it does not declare: the sandbox fails the run before any test.
export default defineConfig({
  plugins: [pi({ sandbox: { packageDir: './broken-package', installArgs: ['--legacy-peer-deps', '--prefer-offline'] } })],
  test: { include: ['tests/**/*.spec.ts'] },
})
