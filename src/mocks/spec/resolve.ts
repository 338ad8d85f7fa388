// The mocked world of a session: a pi.ext.mock_spec.v1 (a file or an object) with the `mocks` option's
// blocks laid over it, validated, as the blocks the other mocks read.
import { resolve } from 'node:path'
import { noteProjectReads } from '../../shared/project-reads.js'
import { readJsonFile } from './load.js'
import type { MockSpec } from './types.js'
import { MockSpecError, validateMockSpec } from './validate.js'

/** The blocks of a mock spec, without its header: what `createTestSession({ mocks })` takes. */
export type MockBlocks = Omit<MockSpec, 'schema' | 'extension_id' | 'description'>

/**
 * Reads and validates `mockSpec` (a path, resolved against `root`, or an object) and lays `mocks` over
 * it, block by block. Errors name the path as it was written.
 */
export function resolveMocks(
  mockSpec: string | MockSpec | undefined,
  mocks: MockBlocks | undefined,
  { root, extensionIds }: { root: string; extensionIds: () => string[] },
): MockBlocks {
  if (mockSpec === undefined && mocks === undefined) return {}
  const known = extensionIds()
  const ids = known.length > 0 ? { extensionIds: known } : {}
  let spec: MockBlocks = {}
  if (typeof mockSpec === 'string') spec = validateMockSpec(readSpecFile(resolve(root, mockSpec), mockSpec), { ...ids, source: mockSpec })
  else if (mockSpec !== undefined) spec = validateMockSpec(mockSpec, ids)
  if (mocks !== undefined) {
    validateMockSpec({ schema: 'pi.ext.mock_spec.v1', extension_id: 'mocks', ...mocks }, { source: 'createTestSession({ mocks })' })
  }
  const { schema: _schema, extension_id: _id, description: _description, ...blocks } = spec as MockSpec
  return { ...blocks, ...mocks }
}

function readSpecFile(path: string, written: string): unknown {
  // Also when it is missing: creating it changes what the session reads.
  noteProjectReads([path])
  try {
    return readJsonFile(path)
  } catch (error) {
    throw error instanceof MockSpecError ? new MockSpecError(written, error.problems) : error
  }
}
