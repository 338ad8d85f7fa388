import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MockSpecError, extensionIdFor } from '../../src/mocks/spec/index.js'

let root: string

function write(path: string, text: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true })
  writeFileSync(join(root, path), text)
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mock-spec-ids-'))
  write('single/permission-gate.ts', 'export default () => {}\n')
  write('plan-mode/index.ts', 'export default () => {}\n')
  write('plan-mode/helpers.ts', 'export {}\n')
  write('js-ext/index.js', 'export default () => {}\n')
  write('pkg/package.json', JSON.stringify({ name: '@acme/pi-gate', pi: { extensions: ['./index.ts'] } }))
  write('pkg/index.ts', 'export default () => {}\n')
  write('pkg/extra.ts', 'export {}\n')
  write('plain-pkg/package.json', JSON.stringify({ name: 'not-a-pi-package' }))
  write('plain-pkg/index.ts', 'export default () => {}\n')
  write('broken-pkg/package.json', '{ "name": ')
  write('broken-pkg/index.ts', 'export default () => {}\n')
})

afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

describe('extensionIdFor', () => {
  it('a single file: its name without the extension', () => {
    expect(extensionIdFor(join(root, 'single/permission-gate.ts'))).toBe('permission-gate')
    expect(extensionIdFor('/a/b/permission-gate.ts')).toBe('permission-gate')
    expect(extensionIdFor('/a/b/gate.test.js')).toBe('gate.test')
  })

  it('an index file: its directory name', () => {
    expect(extensionIdFor(join(root, 'plan-mode/index.ts'))).toBe('plan-mode')
    expect(extensionIdFor(join(root, 'js-ext/index.js'))).toBe('js-ext')
    expect(extensionIdFor('plan-mode/index.ts')).toBe('plan-mode')
  })

  it('a non-index file in an extension directory keeps its own name', () => {
    expect(extensionIdFor(join(root, 'plan-mode/helpers.ts'))).toBe('helpers')
  })

  it('a directory without a pi package.json: its name, the same as for its index file', () => {
    expect(extensionIdFor(join(root, 'plan-mode'))).toBe('plan-mode')
    expect(extensionIdFor(join(root, 'plain-pkg'))).toBe('plain-pkg')
    expect(extensionIdFor(join(root, 'plain-pkg/index.ts'))).toBe('plain-pkg')
  })

  it('a pi package directory, or any file directly in it: the package name', () => {
    expect(extensionIdFor(join(root, 'pkg'))).toBe('@acme/pi-gate')
    expect(extensionIdFor(join(root, 'pkg/'))).toBe('@acme/pi-gate')
    expect(extensionIdFor(join(root, 'pkg/index.ts'))).toBe('@acme/pi-gate')
    expect(extensionIdFor(join(root, 'pkg/extra.ts'))).toBe('@acme/pi-gate')
  })

  it('a broken package.json next to the extension is reported, not guessed around', () => {
    const manifest = join(root, 'broken-pkg/package.json')
    expect(() => extensionIdFor(join(root, 'broken-pkg/index.ts'))).toThrowError(MockSpecError)
    expect(() => extensionIdFor(join(root, 'broken-pkg'))).toThrowError(
      `${manifest}: invalid JSON: Unexpected end of JSON input`,
    )
  })
})
