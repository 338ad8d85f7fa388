// Which child processes the network guard refuses at the spawn, as a pure decision on the argv
// (test/network-children.test.ts starts them for real).
import { describe, expect, it } from 'vitest'
import { refusedProgram } from '../src/isolation/network-programs.js'

describe('refusedProgram', () => {
  it("refuses a program allowPrograms does not name, even when it names another", () => {
    expect(refusedProgram('/usr/bin/nc', ['nc', 'example.com', '80'], ['ssh'])).toBe('nc')
    expect(refusedProgram('/usr/bin/ssh', ['ssh', 'example.com'], ['ssh'])).toBeUndefined()
  })

  it("refuses a shell's /dev/tcp and /dev/udp", () => {
    expect(refusedProgram('/bin/bash', ['bash', '-c', 'echo hi > /dev/tcp/example.com/80'], [])).toBe('/dev/tcp')
    expect(refusedProgram('/bin/bash', ['bash', '-c', 'echo hi > /dev/udp/example.com/53'], [])).toBe('/dev/udp')
  })
})
