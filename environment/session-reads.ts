// Per test file, the project files its sessions read (extension modules, mock specs), kept in the file
// task's meta, which Vitest hands to the main process: there the pi() plugin reruns the test file when
// one of them changes (environment/rerun-on-reads.ts).
import { TestRunner } from 'vitest'
import { onProjectReads } from '../src/shared/project-reads.js'

const META_KEY = 'pi:reads'

/** Run by the setup file, as each test file starts collecting: its sessions' reads go to its meta. */
export function recordFileReads(): void {
  const meta = TestRunner.getCurrentSuite().file.meta as Record<string, unknown>
  const reads = new Set<string>()
  onProjectReads((files) => {
    for (const file of files) reads.add(file)
    meta[META_KEY] = [...reads]
  })
}

/** The files a test file's sessions read, from its meta. */
export function readsOf(meta: object): string[] {
  const reads = (meta as Record<string, unknown>)[META_KEY]
  return Array.isArray(reads) ? reads.filter((file): file is string => typeof file === 'string') : []
}
