// Loading Ajv and compiling the mock spec schema cost a test file's worker 0.4-1 s at its first mock spec:
// the compiled validator is kept in the project's node_modules/.cache, and later processes load that instead.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { ROOT } from '../support/consumer.js'

const project = mkdtempSync(join(tmpdir(), 'pi-validator-cache-'))
mkdirSync(join(project, 'node_modules'))
afterAll(() => rmSync(project, { recursive: true, force: true }))

const validateIn = (cwd: string) =>
  JSON.parse(execFileSync(process.execPath, [join(ROOT, 'test/fixtures/processes/validator-cache.mjs')], { cwd, encoding: 'utf8' })) as { message: string; compilerLoaded: boolean }

it("compiles the schema once per project, and a later process validates with the cached code, with the same messages", () => {
  const first = validateIn(project)
  expect(first.compilerLoaded).toBe(true)
  expect(readdirSync(join(project, 'node_modules', '.cache', 'vitest-environment-pi'))).toEqual([expect.stringMatching(/^mock-spec-validator-[0-9a-f]{16}\.cjs$/)])
  const second = validateIn(project)
  expect(second).toEqual({ message: first.message, compilerLoaded: false })
  expect(second.message).toContain('mock spec: /http/rules/0/match: must have one of url_exact, url_prefix, url_pattern, headers, body_contains')
})
