// Every npm step goes through npmCommand, bounded by timeoutMs, and a step that fails is named with npm's output.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as core from '../../src/index.js'
import { SandboxError, verifySandboxInstall } from '../../src/project/sandbox.js'
import { FAST_INSTALL, leftovers, PACKAGES, removeTempParents, tempParent } from './support.js'

afterAll(removeTempParents)

/** Puts an executable shell script named `name` in a fresh bin dir and returns an env with it first on PATH. */
function onPath(name: string, body: string): { env: NodeJS.ProcessEnv; dir: string } {
  const dir = tempParent()
  const bin = join(dir, 'bin')
  mkdirSync(bin)
  writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`)
  chmodSync(join(bin, name), 0o755)
  return { env: { ...FAST_INSTALL.env, PATH: `${bin}${delimiter}${process.env.PATH}` }, dir }
}

const catchError = async (promise: Promise<unknown>): Promise<SandboxError> => {
  try {
    await promise
  } catch (error) {
    return error as SandboxError
  }
  throw new Error('expected the sandbox to throw')
}

describe('npmCommand', () => {
  it('wraps npm pack and npm install: ["sfw", "npm"] runs `sfw npm pack ...` and `sfw npm install ...`', async () => {
    // A stand-in firewall: records its argv, then runs the rest of it.
    const { env, dir } = onPath('sfw', 'printf \'%s\\n\' "$*" >> "$SFW_DIR/sfw.log"\nexec "$@"')
    const result = await verifySandboxInstall({
      packageDir: join(PACKAGES, 'good'),
      ...FAST_INSTALL,
      env: { ...env, SFW_DIR: dir },
      npmCommand: ['sfw', 'npm'],
      tempDir: dir,
      expect: { tools: ['greet'] },
    })
    expect(result).toHavePassed()
    const argv = readFileSync(join(dir, 'sfw.log'), 'utf8').trim().split('\n')
    expect(argv).toHaveLength(2)
    expect(argv[0]).toMatch(/^npm pack --pack-destination \/.*\/pi-sandbox-\w+\/pack$/)
    expect(argv[1]).toMatch(/^npm install --no-audit --no-fund --legacy-peer-deps --prefer-offline \/.*\/pack\/pi-sandbox-good-1\.0\.0\.tgz$/)
    expect(leftovers(dir).sort()).toEqual(['bin', 'sfw.log'])
  })

  it('names the step that failed, with npm\'s output tail, and removes the temp dirs', async () => {
    const { env, dir } = onPath('strict-npm', 'if [ "$1" = install ]; then echo "npm error code E403: install refused by policy" >&2; exit 1; fi\nexec npm "$@"')
    const error = await catchError(
      verifySandboxInstall({ packageDir: join(PACKAGES, 'good'), ...FAST_INSTALL, env, npmCommand: ['strict-npm'], tempDir: dir }),
    )
    expect(error).toBeInstanceOf(SandboxError)
    expect(error.step).toBe('npm install')
    expect(error.message).toMatch(/^sandbox npm install: `strict-npm install --no-audit .*\.tgz` failed with exit code 1 in \/.*\/project:\nnpm error code E403: install refused by policy$/)
    expect(error.outputTail).toBe('npm error code E403: install refused by policy\n')
    expect(leftovers(dir)).toEqual(['bin'])
  })
})

describe('timeoutMs', () => {
  it('bounds each npm step and names the one that timed out', async () => {
    const { env, dir } = onPath('slow-npm', 'echo "resolving..."\nsleep 30\nexec npm "$@"')
    const started = performance.now()
    const error = await catchError(
      verifySandboxInstall({ packageDir: join(PACKAGES, 'good'), ...FAST_INSTALL, env, npmCommand: ['slow-npm'], timeoutMs: 300, tempDir: dir }),
    )
    expect(error.step).toBe('npm pack')
    expect(error.message).toMatch(/^sandbox npm pack: `slow-npm pack --pack-destination .*` timed out after \d+ ms in .*:\nresolving\.\.\.$/)
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(leftovers(dir)).toEqual(['bin'])
  })
})

describe('from the package entry, which loads the sandbox on its first call', () => {
  it('verifies as the sandbox does, and what it throws is the SandboxError the entry exports', async () => {
    const dir = tempParent()
    const error = await catchError(core.verifySandboxInstall({ packageDir: join(PACKAGES, 'good'), ...FAST_INSTALL, npmCommand: ['false'], tempDir: dir }))
    expect(error).toBeInstanceOf(core.SandboxError)
    expect(core.SandboxError).toBe(SandboxError)
    expect(error.step).toBe(core.SANDBOX_STEPS[0])
    expect(error.message).toMatch(/^sandbox npm pack: `false pack --pack-destination .*` failed with exit code 1/)
    expect(leftovers(dir)).toEqual([])
  })
})
