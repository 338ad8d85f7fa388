// The harness's files a `pi` child loads (its extension, the network guard) must be JavaScript: the child is
// plain Node and Pi's loader. Installed, they sit beside this module in dist/; in the harness's own tests,
// which run the TypeScript sources, they come from the build.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = fileURLToPath(import.meta.url)
const srcDir = dirname(dirname(here))
const compiledSrc = here.endsWith('.js') ? srcDir : join(dirname(srcDir), 'dist', 'src')

/** The compiled file of `src/<path>.ts`, e.g. `process/child-extension`; throws naming it when it is not built. */
export function childFile(path: string): string {
  const file = join(compiledSrc, `${path}.js`)
  if (!existsSync(file)) throw new Error(`The pi child needs ${file}, which does not exist: build the harness first (npm run build)`)
  return file
}

/** Node's `--import` of a module that takes the network guard in the child for its whole life. */
export function networkGuardPreload(): string[] {
  const guard = pathToFileURL(childFile('isolation/network-guard')).href
  return ['--import', `data:text/javascript,${encodeURIComponent(`import { guardNetwork } from ${JSON.stringify(guard)}; guardNetwork()`)}`]
}
