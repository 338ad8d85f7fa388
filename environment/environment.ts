// The `pi` environment: each test file gets an isolated home and its session defaults.
import { createRequire } from 'node:module'
import { runInContext } from 'node:vm'
import { builtinEnvironments, type Environment } from 'vitest/runtime'
import { enterIsolation } from '../src/isolation/isolation.js'
import { settleTempDirs } from '../src/isolation/temp-dirs.js'
import { findPiLine } from '../src/pi/line.js'
import { usesPiBundle } from '../src/pi/bundled.js'
import { setFileDefaults, type PiEnvironmentOptions } from './defaults.js'

const vitestVersion = () => (createRequire(import.meta.url)('vitest/package.json') as { version: string }).version
const vitestMajor = () => Number(vitestVersion().split('.')[0])

/** Vitest passes the whole environmentOptions; a docblock's options replace the config's. */
const piOptions = (options: Record<string, unknown>) => options.pi as PiEnvironmentOptions | undefined

export const environment: Environment = {
  name: 'pi',
  viteEnvironment: 'ssr',
  async setup(global: object, options) {
    const { leave } = await enterIsolation()
    setFileDefaults(global, piOptions(options))
    return {
      // The sessions' temp dirs are removed in the background; the file ends when they are gone.
      async teardown(teardownGlobal: object) {
        setFileDefaults(teardownGlobal, undefined)
        leave()
        await settleTempDirs()
      },
    }
  },
  async setupVM(options) {
    const line = findPiLine()
    // Pi 1.x's pi-ai imports JSON modules (`import … with { type: 'json' }`). Vitest 4's VM pools build a JSON
    // module outside the test file's VM context, and Node refuses to link it ("Linked modules must use the
    // same context"); Vitest 5 builds it inside the context, and Pi's bundle has the JSON inlined.
    if (line.scope === '@earendil-works' && vitestMajor() < 5 && !usesPiBundle(line)) {
      throw new Error(
        `${line.packageName}@${line.version} imported from its own files cannot run in Vitest ${vitestVersion()}'s VM pools (vmThreads, vmForks): Vitest 4 builds the JSON modules Pi 1.x imports outside the test's VM context, where Node cannot link them. Use pi() with its bundle of Pi (the default; not bundlePi: false), the forks or threads pool, or Vitest 5.`,
      )
    }
    const base = await builtinEnvironments.node.setupVM!(options)
    const context = base.getVmContext()
    const { leave } = await enterIsolation()
    setFileDefaults(runInContext('globalThis', context) as object, piOptions(options))
    return {
      getVmContext: () => context,
      async teardown() {
        leave()
        await settleTempDirs()
        await base.teardown()
      },
    }
  },
}
