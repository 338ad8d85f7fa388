// The `pi` environment: each test file gets an isolated home and its session defaults.
import { runInContext } from 'node:vm'
import { builtinEnvironments, type Environment } from 'vitest/runtime'
import { enterIsolation } from '../src/isolation/isolation.js'
import { findPiLine } from '../src/pi/line.js'
import { setFileDefaults, type PiEnvironmentOptions } from './defaults.js'

/** Vitest passes the whole environmentOptions; a docblock's options replace the config's. */
const piOptions = (options: Record<string, unknown>) => options.pi as PiEnvironmentOptions | undefined

export const environment: Environment = {
  name: 'pi',
  viteEnvironment: 'ssr',
  setup(global: object, options) {
    const { leave } = enterIsolation()
    setFileDefaults(global, piOptions(options))
    return {
      teardown(teardownGlobal: object) {
        setFileDefaults(teardownGlobal, undefined)
        leave()
      },
    }
  },
  async setupVM(options) {
    const line = findPiLine()
    // Seen with Pi 1.6 on Node 22: Pi imports JSON modules (`import … with { type: 'json' }`) that
    // Vitest's VM pools fail to link ("Linked modules must use the same context").
    if (line.scope === '@earendil-works') {
      throw new Error(
        `${line.packageName}@${line.version} cannot run in Vitest's VM pools (vmThreads, vmForks): they cannot link the JSON modules Pi 1.x imports. Use the forks or threads pool.`,
      )
    }
    const base = await builtinEnvironments.node.setupVM!(options)
    const context = base.getVmContext()
    const { leave } = enterIsolation()
    setFileDefaults(runInContext('globalThis', context) as object, piOptions(options))
    return {
      getVmContext: () => context,
      async teardown() {
        leave()
        await base.teardown()
      },
    }
  },
}
