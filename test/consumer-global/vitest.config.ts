import { defineConfig } from 'vitest/config'
import { pi } from 'vitest-environment-pi/plugin'

// Two projects and the root: the global setup is called three times and must run the work once.
export default defineConfig({
  plugins: [
    pi({
      scripts: ['build', 'lint'],
      sandbox: {
        packageDir: './pi-package',
        expect: { extensions: 1, tools: ['hello'], skills: 0 },
        smokeFile: './smoke.ts',
        installArgs: ['--legacy-peer-deps', '--prefer-offline'],
      },
    }),
  ],
  test: {
    include: ['tests/**/*.spec.ts'],
    projects: [
      { extends: true, test: { name: 'first' } },
      { extends: true, test: { name: 'second' } },
    ],
  },
})
