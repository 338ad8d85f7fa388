// createMockPi, ended with the test that made it: a test that fails before dispose(), or never calls it,
// does not leave PATH changed for later tests, nor its folder behind. One made outside a test ends with the file.
import { createMockPi as createMock, type MockPi, type MockPiOptions } from '../src/project/mock-pi.js'
import { endWithRunningTest } from './sessions.js'

export function createMockPi(options?: MockPiOptions): MockPi {
  const mock = createMock(options)
  // dispose() twice is safe: the test's own call comes first, and this one finds nothing left to do.
  endWithRunningTest(() => mock.dispose())
  return mock
}
