// The project files a session reads at run time by a path it was given (an extension's modules, a mock
// spec): a test runner that reruns a test when a file it depends on changes listens here (the Vitest glue
// does, per test file). src/ reads the files either way; without a listener this does nothing.
import { globalSlot } from './global-slot.js'

export type ProjectReadListener = (files: readonly string[]) => void

// On globalThis: the setup file and the test may hold different instances of this module.
const listener = globalSlot<ProjectReadListener>('project-reads')

export function onProjectReads(read: ProjectReadListener | undefined): void {
  listener.set(read)
}

/** Tells the listener that a session read `files` (absolute paths), whether or not reading them succeeded. */
export function noteProjectReads(files: readonly string[]): void {
  if (files.length > 0) listener.get()?.(files)
}
