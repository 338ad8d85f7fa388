// Fails to load after polluting (`--mode=broken` runs it first): Vitest skips the afterAll hooks of a file
// that failed to load, so the harness must undo this at the start of the next file instead.
import { createTestSession } from 'vitest-environment-pi'
import { setMark } from '../helpers/marks.js'

process.env.LEAK_ADDED = 'from a broken file'
;(globalThis as Record<string, unknown>).leakedGlobal = 'from a broken file'
setInterval(() => setMark('interval', 'broken'), 5)
const t = await createTestSession()
setMark('broken-session-cwd', t.cwd)

throw new Error('this file fails to load')
