// What the sandbox tests share: fixture packages, a fast offline install, and a temp parent dir to watch.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { SandboxOptions } from '../../src/project/sandbox.js'

export const PACKAGES = resolve(import.meta.dirname, '../fixtures/packages')

/** Peers are left to Pi's loader (as Pi itself does for its core packages) and nothing is fetched. */
export const FAST_INSTALL = {
  installArgs: ['--legacy-peer-deps', '--prefer-offline'],
  env: { npm_config_fund: 'false', npm_config_audit: 'false' },
} satisfies Partial<SandboxOptions>

const parents: string[] = []

/** A fresh parent for the sandbox's temp dirs, so a test can see that nothing is left behind. */
export function tempParent(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pi-sandbox-test-'))
  parents.push(dir)
  return dir
}

export const leftovers = (parent: string) => readdirSync(parent)

export function removeTempParents(): void {
  for (const dir of parents.splice(0)) rmSync(dir, { recursive: true, force: true })
}
