// Which programs a child's command line starts, as a pure reading of the argv: what the network guard's
// refusals (test/network-programs.test.ts, test/network-guard-bypass.test.ts) look at.
import { describe, expect, it } from 'vitest'
import { shellCommands, startedPrograms } from '../src/isolation/started-programs.js'

const started = (file: string, ...args: string[]) => startedPrograms(file, [file, ...args]).map(({ word, args, how }) => [how, word, ...args].join(' '))

describe('startedPrograms', () => {
  it("is the child's own program, spawned", () => {
    expect(started('/usr/bin/curl', '-sS', 'https://example.com')).toEqual(['spawned /usr/bin/curl -sS https://example.com'])
  })

  it('is the program a wrapper runs, past its options, assignments and own words', () => {
    expect(started('/usr/bin/env', '-u', 'HOME', 'LANG=C', 'timeout', '-k', '1', '5s', 'nice', '-n', '5', 'sudo', '-u', 'bob', '--', 'xargs', '-I', '{}', 'stdbuf', '-oL', 'nc', '{}')).toEqual(['run nc {}'])
  })

  it('is a busybox applet', () => {
    expect(started('/bin/busybox', 'nc', 'example.com', '80')).toEqual(['applet nc example.com 80'])
  })

  it("is each simple command of a shell's -c, and of the shells it starts, past assignments and keywords", () => {
    expect(started('/bin/bash', '-o', 'pipefail', '-ec', `A=1 ls | if grep -q x; then sh -c 'exec /usr/bin/nc host 80'; fi`)).toEqual([
      'spawned /bin/bash -o pipefail -ec A=1 ls | if grep -q x; then sh -c \'exec /usr/bin/nc host 80\'; fi',
      'run ls',
      'run grep -q x',
      'run sh -c exec /usr/bin/nc host 80',
      'run /usr/bin/nc host 80',
    ])
  })

  it("keeps the shell's command, and starts nothing from a script's own arguments", () => {
    expect(startedPrograms('/bin/sh', ['sh', '-c', 'echo hi']).map(({ script }) => script)).toEqual(['echo hi', undefined])
    expect(started('/bin/sh', 'script.sh', '-c', 'nc host 80')).toEqual(['spawned /bin/sh script.sh -c nc host 80'])
  })

  it("starts nothing from another command's arguments", () => {
    expect(started('/bin/sh', '-c', 'echo nc host; grep -rn ssh .').slice(1)).toEqual(['run echo nc host', 'run grep -rn ssh .'])
    expect(started('/usr/bin/env')).toEqual([])
  })
})

describe('shellCommands', () => {
  it("splits at ; && || | ( ) and backquotes, and takes the quotes off each word", () => {
    expect(shellCommands(`a 'b c' "d \\"e\\"" f\\ g && h|i; (j) \`k\``)).toEqual([['a', 'b c', 'd "e"', 'f g'], ['h'], ['i'], ['j'], ['k']])
  })
})
