import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { pi } from 'vitest-environment-pi/plugin'

/** Files by name (pollute, then check), or the reverse with `--mode=reverse`: one fixed order in one worker. */
export const byName = (reverse: boolean) =>
  class extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const sorted = [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId))
      return reverse ? sorted.reverse() : sorted
    }
  }

export default defineConfig(({ mode }) => ({
  plugins: [pi({ isolate: false })],
  test: {
    // `--mode=broken` adds a file that fails to load, sorted first.
    include: ['tests/**/*.spec.ts', ...(mode === 'broken' ? ['broken/**/*.spec.ts'] : [])],
    maxWorkers: 1,
    sequence: { sequencer: byName(mode === 'reverse') },
  },
}))
