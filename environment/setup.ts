// The setup file, run before every test file: Vite processes it, so the import() below goes
// through Vite's module runner; it also registers the matchers and the snapshot serializer.
import { afterAll, expect } from 'vitest'
import { guardLateTimers } from '../src/isolation/late-timers.js'
import { settleTempDirs } from '../src/isolation/temp-dirs.js'
import { throwFileLateWork } from '../src/session/late-work.js'
import { disposeLiveSessions } from '../src/session/live-sessions.js'
import { setModuleLoader } from '../src/session/module-loader.js'
import { globalSlot } from '../src/shared/global-slot.js'
import { piMatchers } from '../matchers/index.js'
import { beginFile, sharedWorker } from './file-reset.js'
import { freshLoader } from './module-loader.js'
import { piSerializer } from './serializer.js'
import { recordFileReads } from './session-reads.js'
import { trackRunningTests } from './running-tests.js'

// Before a shared worker's file tracks its timers (beginFile): the file's wrapper goes over this one and
// comes off again at its end.
guardLateTimers()
setModuleLoader(freshLoader((path) => import(/* @vite-ignore */ path)))
recordFileReads()
expect.extend(piMatchers)
trackRunningTests()

// A worker shared by several files (isolate: false) runs this for each of them: add the serializer once.
const serializerAdded = globalSlot<true>('serializer')
if (!serializerAdded.get()) {
  expect.addSnapshotSerializer(piSerializer)
  serializerAdded.set(true)
}

let endFile: (() => void) | undefined
if (sharedWorker()) {
  // Sessions of a previous file that failed to load (its afterAll never ran) go first.
  await disposeLiveSessions()
  endFile = await beginFile()
}

// Registered first, so it runs after the file's own afterAll hooks: sessions, then the reset. The
// sessions' temp dirs are removed in the background: the file ends when they are gone, also where the
// setup file is used without the environment (whose teardown waits for them too).
afterAll(async () => {
  try {
    await disposeLiveSessions()
  } finally {
    endFile?.()
    await settleTempDirs()
    // A session's timer, model call or dialog that ran after its test ended fails the file, naming that test.
    throwFileLateWork()
  }
})
