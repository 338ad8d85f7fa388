// Which programs are told on their command line to go around what guards a child process (the proxy, Python's
// and Perl's own guards), as a pure decision on the argv (test/network-children.test.ts and
// test/network-interpreters.test.ts start them for real).
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { guardBypass } from '../src/isolation/network-guard-bypass.js'
import { startedPrograms } from '../src/isolation/started-programs.js'

/** The decision for the child `file` with `args` (Node's normalised argv), as the spawn takes it. */
const bypass = (file: string, args: readonly string[], cwd?: string) => guardBypass(startedPrograms(file, args), cwd)
const words = (file: string, args: readonly string[]) => bypass(file, args)?.words

/** The words refused for a command line written as one string, the program in /usr/bin. */
const wordsOf = (line: string) => words(`/usr/bin/${line.split(' ')[0]}`, line.split(' '))

describe('guardBypass: clients told not to use the proxy', () => {
  it.each([
    ['curl --noproxy * https://example.com', 'curl --noproxy *'],
    ['curl -sS --noproxy example.com,localhost https://example.com', 'curl --noproxy example.com,localhost'],
    ['curl --proxy http://proxy.example.com:3128 https://example.com', 'curl --proxy http://proxy.example.com:3128'],
    ['curl -x socks5h://10.0.0.1:1080 https://example.com', 'curl -x socks5h://10.0.0.1:1080'],
    ['curl -xhttp://proxy.example.com https://example.com', 'curl -xhttp://proxy.example.com'],
    ['curl --socks5-hostname proxy.example.com:1080 https://example.com', 'curl --socks5-hostname proxy.example.com:1080'],
    ['curl --preproxy 10.0.0.2 https://example.com', 'curl --preproxy 10.0.0.2'],
    ['wget --no-proxy https://example.com', 'wget --no-proxy'],
    ['wget -Y off https://example.com', 'wget -Y off'],
    ['wget --proxy=off https://example.com', 'wget --proxy=off'],
    ['wget -e use_proxy=no https://example.com', 'wget -e use_proxy=no'],
    ['wget --execute=https_proxy=http://proxy.example.com:3128 https://example.com', 'wget --execute=https_proxy=http://proxy.example.com:3128'],
    ['wget -eno_proxy=example.com https://example.com', 'wget -eno_proxy=example.com'],
  ])('refuses %s, naming %s', (line, named) => {
    expect(wordsOf(line)).toBe(named)
  })

  it.each([
    [['curl', '-sS', '--noproxy', '*', 'http://127.0.0.1:8080/health']],
    [['curl', '--noproxy', '*', '-o', '/dev/null', '-sSw', '%{http_code}', '-H', 'accept: text/plain', 'localhost:3000/x']],
    [['curl', '--noproxy', '*', '-d', 'a=1', 'http://[::1]:8080/', 'http://user@localhost/']],
  ])('lets %j start: it goes around the proxy to loopback alone', (line) => {
    expect(words(line[0]!, line)).toBeUndefined()
  })

  it.each([
    [['curl', '--noproxy', '*', 'http://localhost/x', 'https://example.com/'], 'curl --noproxy *'],
    [['curl', '--noproxy', '*', '-s', 'http://localhost/', 'example.com'], 'curl --noproxy *'],
    [['curl', '--noproxy', '*', '--connect-to', 'localhost:80:example.com:80', 'http://localhost/'], 'curl --noproxy *'],
    [['curl', '--noproxy', '*', '-K', 'urls.txt'], 'curl --noproxy *'],
    [['curl', '--noproxy', '*'], 'curl --noproxy *'],
    [['curl', '-sSL', '--noproxy', '*', 'http://localhost/'], 'curl --noproxy *'],
    [['curl', '--noproxy', '*', '--location', 'http://localhost/'], 'curl --noproxy *'],
    [['wget', '--no-proxy', '-qO', '-', 'http://127.0.0.1:8080/'], 'wget --no-proxy'],
    [['wget', '-e', 'no_proxy=example.com', 'http://localhost/x'], 'wget -e no_proxy=example.com'],
    [['wget', '-e', 'https_proxy=http://proxy.example.com:3128', 'http://localhost/'], 'wget -e https_proxy=http://proxy.example.com:3128'],
  ])('refuses %j, where an address or a redirect may be beyond loopback, naming %s', (line, named) => {
    expect(words(line[0]!, line)).toBe(named)
  })

  it('refuses an empty proxy, which curl takes as none', () => {
    expect(words('curl', ['curl', '--proxy', '', 'https://example.com'])).toBe('curl --proxy ')
  })

  it.each([
    'curl -sS https://example.com',
    'curl --noproxy localhost,127.0.0.1,::1 http://localhost:8080',
    'curl -x http://127.0.0.1:3128 https://example.com',
    'curl --proxy [::1]:3128 https://example.com',
    'wget -q https://example.com',
    'wget -e robots=off https://example.com',
    'wget -Y on https://example.com',
    'git fetch --noproxy',
  ])('lets %s start: it asks the proxy, or a proxy on loopback', (line) => {
    expect(wordsOf(line)).toBeUndefined()
  })

  it('finds the client in a shell command, quoted as a shell would take it, after other commands', () => {
    expect(words('/bin/sh', ['sh', '-c', `cd /tmp && curl -fsS --noproxy '*' https://example.com | jq .`])).toBe('curl --noproxy *')
    expect(words('/bin/bash', ['bash', '-c', 'set -e; env A=1 /usr/bin/wget "--no-proxy" https://example.com'])).toBe('wget --no-proxy')
    expect(words('/bin/sh', ['sh', '-c', 'command -v curl && curl -sS https://example.com'])).toBeUndefined()
    expect(words('/bin/sh', ['sh', '-c', 'echo --noproxy; curl https://example.com'])).toBeUndefined()
  })
})

describe('guardBypass: the program in command position', () => {
  it.each([
    [['/usr/bin/env', 'env', 'LANG=C', 'curl', '--noproxy', '*', 'https://example.com'], 'curl --noproxy *'],
    [['/usr/bin/timeout', 'timeout', '-s', 'KILL', '5', 'curl', '--noproxy', '*', 'https://example.com'], 'curl --noproxy *'],
    [['/usr/bin/nice', 'nice', '-n', '5', 'python3', '-I', 'sync.py'], 'python3 -I'],
    [['/usr/bin/sudo', 'sudo', '-u', 'bob', '--', 'perl', '-T', 'sync.pl'], 'perl -T'],
    [['/usr/bin/xargs', 'xargs', '-I', '{}', 'wget', '--no-proxy', '{}'], 'wget --no-proxy'],
    [['/bin/busybox', 'busybox', 'wget', '-Y', 'off', 'https://example.com'], 'wget -Y off'],
    [['/bin/sh', 'sh', '-c', 'A=1 B=2 curl --noproxy "*" https://example.com'], 'curl --noproxy *'],
    [['/bin/sh', 'sh', '-c', 'if python3 -S sync.py; then echo ok; fi'], 'python3 -S'],
    [['/bin/sh', 'sh', '-c', 'ls | xargs -n 1 stdbuf -oL curl --noproxy "*"'], 'curl --noproxy *'],
    [['/bin/bash', 'bash', '-o', 'pipefail', '-ec', `bash -c "sh -c 'curl --noproxy \\* https://example.com'"`], 'curl --noproxy *'],
    [['/bin/busybox', 'busybox', 'sh', '-c', 'exec wget --no-proxy https://example.com'], 'wget --no-proxy'],
  ])('refuses %j, naming %s', ([file, ...args], named) => {
    expect(words(file!, args)).toBe(named)
  })

  it.each([
    [['/bin/sh', 'sh', '-c', `echo curl --noproxy '*'`]],
    [['/bin/sh', 'sh', '-c', 'grep -rn python -I src']],
    [['/usr/bin/grep', 'grep', 'perl', '-T', 'notes.md']],
    [['/usr/bin/git', 'git', 'commit', '-m', 'curl --noproxy *']],
    [['/bin/sh', 'sh', 'script.sh', '-c', 'curl --noproxy *']],
    [['/usr/bin/env', 'env', 'curl', 'https://example.com']],
    [['/bin/sh', 'sh', '-c', 'constructor toString curl']],
  ])('lets %j start: no program is told to go around the guard', ([file, ...args]) => {
    expect(words(file!, args)).toBeUndefined()
  })
})

describe('guardBypass: Python and Perl started without their guards', () => {
  it.each([
    ['python3 -I sync.py', 'python3 -I'],
    ['python3 -E -c pass', 'python3 -E'],
    ['python -S sync.py', 'python -S'],
    ['python3.11 -uIB sync.py', 'python3.11 -I'],
    ['python3 -W error -S sync.py', 'python3 -S'],
    ['pypy3 -I sync.py', 'pypy3 -I'],
    ['perl -T sync.pl', 'perl -T'],
    ['perl -wt sync.pl', 'perl -t'],
    ['perl -e print -T', 'perl -T'],
    ['perl5.36 -Mstrict -T sync.pl', 'perl5.36 -T'],
  ])('refuses %s, naming %s', (line, named) => {
    expect(wordsOf(line)).toBe(named)
  })

  it.each([
    'python3 sync.py -I',
    'python3 -c print(1) -S',
    'python3 -m venv -E',
    'python3 -W E sync.py',
    'python3 -X importtime sync.py',
    'python3 -s sync.py',
    'perl sync.pl -T',
    'perl -MTest sync.pl',
    'perl -I/opt/T sync.pl',
  ])('lets %s start: its guard loads', (line) => {
    expect(wordsOf(line)).toBeUndefined()
  })

  it('says what the words do', () => {
    expect(bypass('/bin/sh', ['sh', '-c', 'cd src && python3 -I sync.py'])).toEqual({ words: 'python3 -I', why: "starts Python without the network guard's sitecustomize, which child processes get" })
    expect(bypass('perl', ['perl', '-T', 'sync.pl'])?.why).toBe("starts Perl without the network guard's module, which child processes get")
    expect(bypass('curl', ['curl', '--noproxy', '*', 'https://example.com'])?.why).toBe('tells the program not to use the proxy that child processes get')
  })
})

describe('guardBypass: a script started by its path, with flags on its #! line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pi-guard-shebang-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const script = (name: string, head: string) => {
    const path = join(dir, name)
    writeFileSync(path, `${head}\nprint(1)\n`)
    chmodSync(path, 0o755)
    return path
  }

  it.each([
    ['sync.py', '#!/usr/bin/python3 -I', 'python3 -I'],
    ['sync.pl', '#! /usr/bin/perl -wT', 'perl -T'],
    ['env-split.py', '#!/usr/bin/env -S python3 -E -u', 'python3 -E'],
  ])('refuses %s (%s), naming the line', (name, head, named) => {
    const path = script(name, head)
    expect(words(path, [path, '--flag'])).toBe(`${named} (the #! line of ${path})`)
    expect(words('/bin/sh', ['sh', '-c', `cd /tmp; ${path} --flag`])).toBe(`${named} (the #! line of ${path})`)
    expect(words('./' + name, ['./' + name])).toBeUndefined()
    expect(bypass('./' + name, ['./' + name], dir)?.words).toBe(`${named} (the #! line of ./${name})`)
  })

  it.each([
    ['plain.py', '#!/usr/bin/env python3'],
    ['shell.sh', '#!/bin/sh -e'],
    ['none.txt', 'print(1)'],
  ])('lets %s (%s) start', (name, head) => {
    const path = script(name, head)
    expect(words(path, [path])).toBeUndefined()
  })

  it('lets a program that is not there, a directory or a binary start as it would', () => {
    expect(words(join(dir, 'missing.py'), ['missing.py'])).toBeUndefined()
    expect(words(dir, [dir])).toBeUndefined()
    expect(words(process.execPath, [process.execPath, '-e', '1'])).toBeUndefined()
  })

  it('does not wait on a FIFO named as a program', () => {
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    // In a process of its own, with a timeout: a blocking open would hold this worker's thread for good.
    const script = `const { guardBypass } = await import('./dist/src/isolation/network-guard-bypass.js'); const { startedPrograms } = await import('./dist/src/isolation/started-programs.js'); process.stdout.write(String(guardBypass(startedPrograms(${JSON.stringify(fifo)}, ['fifo']))))`
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })).toBe('undefined')
  })
})

