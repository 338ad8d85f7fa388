// The `pi` environment: each test file gets an isolated home and its session defaults.
import { runInContext } from 'node:vm'
import { builtinEnvironments, type Environment } from 'vitest/runtime'
import { enterIsolation } from '../src/isolation.js'
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
