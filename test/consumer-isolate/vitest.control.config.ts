// The control: files share a worker, but the harness is told they are isolated, so it resets nothing.
// The check file must then fail for every kind of state the harness resets: the leak tests see leaks.
import { defineConfig } from 'vitest/config'
import { pi } from 'vitest-environment-pi/plugin'
import { byName } from './vitest.config.js'

export default defineConfig({
  plugins: [pi()],
  test: { include: ['tests/**/*.spec.ts'], isolate: false, provide: { 'pi:isolate': true }, maxWorkers: 1, sequence: { sequencer: byName(false) } },
})
