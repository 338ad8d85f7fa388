// Global setup: the suite fails if any test file opened a socket to a non-loopback address.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'pi-network-audit-'))
  process.env.PI_NETWORK_AUDIT_DIR = dir
  return () => {
    const opened = readdirSync(dir).flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean))
    rmSync(dir, { recursive: true, force: true })
    if (opened.length > 0) throw new Error(`The suite opened sockets to non-loopback addresses: ${[...new Set(opened)].join(', ')}`)
  }
}
