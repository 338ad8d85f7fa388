// The setup file, run before every test file: Vite processes it, so the import() below goes
// through Vite's module runner; it also registers the matchers and the snapshot serializer.
import { afterAll, expect } from 'vitest'
import { setModuleLoader } from '../src/module-loader.js'
import { piMatchers } from '../matchers/index.js'
import { freshLoader } from './module-loader.js'
import { piSerializer } from './serializer.js'
import { disposeFileSessions } from './sessions.js'

setModuleLoader(freshLoader((path) => import(/* @vite-ignore */ path)))
expect.extend(piMatchers)
expect.addSnapshotSerializer(piSerializer)
afterAll(disposeFileSessions)
