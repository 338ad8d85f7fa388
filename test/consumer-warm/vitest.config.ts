import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { pi } from 'vitest-environment-pi/plugin'

/** Files by name: one fixed order in one worker at a time. */
class ByName extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId))
  }
}

// `--mode=cold`: pi({ warmWorkers: false }); `--mode=threads`, `--mode=forks`: a pool the user names.
export default defineConfig(({ mode }) => ({
  plugins: [pi(mode === 'cold' ? { warmWorkers: false } : {})],
  test: {
    include: ['tests/**/*.spec.ts'],
    maxWorkers: 1,
    sequence: { sequencer: ByName },
    ...(mode === 'threads' || mode === 'forks' ? { pool: mode } : {}),
  },
}))
