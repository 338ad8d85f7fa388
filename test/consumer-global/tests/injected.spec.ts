import { describe, expect, inject, it } from 'vitest'

describe('what the global setup provided', () => {
  it('the npm scripts, each with its status and output', () => {
    const scripts = inject('pi:scripts')
    expect(scripts?.build).toMatchObject({ script: 'build', status: 'passed', exitCode: 0 })
    expect(scripts?.build?.outputTail).toContain('built the extension')
    expect(scripts?.lint).toMatchObject({ script: 'lint', status: 'failed', exitCode: 1 })
    expect(scripts?.lint?.outputTail).toContain('extensions/hello.js: 1 problem')
  })

  it('the sandbox install, loaded by Pi, with the smoke playbook it ran', () => {
    const sandbox = inject('pi:sandbox')
    expect(sandbox).toMatchObject({
      status: 'passed',
      packageName: 'pi-hello',
      tarball: 'pi-hello-0.1.0.tgz',
      loaded: { extensions: ['extensions/hello.js'], tools: ['hello'], skills: [], extensionErrors: [] },
      problems: [],
    })
    expect(sandbox?.smoke?.toolResults).toMatchObject([{ toolName: 'hello', text: 'Hello, Ada!', isError: false }])
  })
})
