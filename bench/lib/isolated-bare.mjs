// Bare Pi inside a harness session's isolation and nothing else: its own temp home and cwd, its HOME variables
// and its async context. The isolation is the harness's own code (dist internals, by path), entered and left as
// createTestSession and dispose() do; inside it, bare Pi does the standard work by hand. No records, mocks,
// scripted model or option checks. On 0.73 it is the floor of any harness that isolates each session so; on 1.x
// bare Pi also pays, in each fresh home, the catalog refresh its registerProvider starts, which the harness does not.
import { bareStandardIteration } from './bare.mjs'

const { enterIsolation, enterSessionHome } = await import('../../dist/src/isolation/isolation.js')
const { makeSessionDirs, releaseSessionDirs } = await import('../../dist/src/isolation/session-dirs.js')
const { runInSession } = await import('../../dist/src/shared/session-context.js')

/** Scenario (a) by bare Pi in a session's fresh home and cwd, with its context and HOME entered. */
export async function isolatedBareIteration(standard) {
  const dirs = await makeSessionDirs(undefined)
  const scope = { home: dirs.home, cwd: dirs.cwd }
  try {
    return await runInSession(scope, async () => {
      const { leave } = await enterIsolation()
      const leaveHome = enterSessionHome(scope, dirs.agentDir)
      try {
        return await bareStandardIteration({ cwd: dirs.cwd, agentDir: dirs.agentDir }, standard)
      } finally {
        leaveHome()
        leave()
      }
    })
  } finally {
    releaseSessionDirs(dirs)
  }
}
