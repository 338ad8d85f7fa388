// Interpreters' own sockets in a test's child processes, which ignore the proxy variables: the guard Python
// loads at its start (sitecustomize, on the child's PYTHONPATH) and the one Perl loads (PERL5OPT) refuse a
// connection, a datagram and a DNS query beyond loopback, and the test fails naming the host, the
// interpreter, the child, the extension and the test. Beneath each guard lies a floor: a module of the test's
// own, which the interpreter loads first (as it loads a user's), that records what would leave loopback and
// refuses it. Nothing leaves the machine, whatever the guard does.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from '../environment/index.js'
import { guardNetwork } from '../src/isolation/network-guard.js'

const EXTENSION = './test/fixtures/network-children/shell-out.ts'

const PYTHON_FLOOR = `import json, os, socket
def record(what):
    with open(os.environ['FLOOR_LOG'], 'a') as log:
        log.write(json.dumps(what) + '\\n')
record('loaded')
def local(host):
    return host in ('127.0.0.1', '::1', 'localhost', '')
def stub(name, address_in, fail):
    real = getattr(socket.socket, name)
    def stopped(self, *args):
        address = address_in(args)
        if self.family in (socket.AF_INET, socket.AF_INET6) and address is not None and not local(address[0]):
            record([name, str(address[0]), address[1]])
            raise fail
        return real(self, *args)
    setattr(socket.socket, name, stopped)
unreachable = OSError(113, 'stopped by the floor')
stub('connect', lambda args: args[0], unreachable)
stub('connect_ex', lambda args: args[0], unreachable)
stub('sendto', lambda args: args[-1], unreachable)
real_getaddrinfo = socket.getaddrinfo
def getaddrinfo(host, *rest, **options):
    if host is not None and not local(host) and not host[0].isdigit():
        record(['getaddrinfo', host])
        raise socket.gaierror(-2, 'stopped by the floor')
    return real_getaddrinfo(host, *rest, **options)
socket.getaddrinfo = getaddrinfo
`

const PERL_FLOOR = `package PerlFloor;
use strict;
use warnings;
no warnings 'redefine';
use Socket ();
sub record { open(my $log, '>>', $ENV{FLOOR_LOG}) or die; print $log "$_[0]\\n"; close($log) }
record('"loaded"');
sub near { my ($host) = @_; return !defined $host || $host =~ /^(127\\.0\\.0\\.1|::1|localhost|)$/ }
sub far {
    my ($address) = @_;
    my $family = eval { Socket::sockaddr_family($address) } // return undef;
    return undef unless $family == Socket::AF_INET();
    my ($port, $ip) = Socket::unpack_sockaddr_in($address);
    my $host = Socket::inet_ntoa($ip);
    return near($host) ? undef : "$host:$port";
}
*CORE::GLOBAL::connect = sub (*$) {
    my $far = far($_[1]);
    if (defined $far) { record("[\\"connect\\", \\"$far\\"]"); $! = 113; return 0 }
    return CORE::connect($_[0], $_[1]);
};
*CORE::GLOBAL::send = sub (*$$;$) {
    my $far = @_ > 3 ? far($_[3]) : undef;
    if (defined $far) { record("[\\"send\\", \\"$far\\"]"); $! = 113; return undef }
    return @_ > 3 ? CORE::send($_[0], $_[1], $_[2], $_[3]) : CORE::send($_[0], $_[1], $_[2]);
};
my $inet_aton = \\&Socket::inet_aton;
*Socket::inet_aton = sub { return near($_[0]) || $_[0] =~ /^[\\d.]+$/ ? $inet_aton->(@_) : (record("[\\"inet_aton\\", \\"$_[0]\\"]"), undef)[1] };
my $getaddrinfo = \\&Socket::getaddrinfo;
*Socket::getaddrinfo = sub { return near($_[0]) || $_[0] =~ /^[\\d.]+$/ ? $getaddrinfo->(@_) : (record("[\\"getaddrinfo\\", \\"$_[0]\\"]"), -2)[1] };
1;
`

interface Interpreter {
  /** What the guard names it: `Python 3.11.7`. */
  name: string
  program: string
  version: string[]
  /** The floor's file, in a dir of its own, and the variables that load it first. */
  floor: { file: string; source: string; env: (dir: string) => Record<string, string> }
  scripts: Record<string, string>
  /** Script, way, what the test fails naming, and what the script printed. */
  refused: [string, string, string, string][]
  loopback: string
}

const INTERPRETERS: Interpreter[] = [
  {
    name: 'Python',
    program: 'python3',
    version: ['-c', 'import sys; print(sys.version.split()[0])'],
    floor: { file: 'sitecustomize.py', source: PYTHON_FLOOR, env: (dir) => ({ PYTHONPATH: dir }) },
    scripts: {
      'connect.py': `import socket\ntry:\n    socket.socket().connect(('192.0.2.1', 9))\nexcept OSError as error:\n    print('refused', error.errno, error)\n`,
      'resolve.py': `import socket\ntry:\n    socket.create_connection(('example.com', 80), timeout=5)\nexcept OSError as error:\n    print('refused', error)\n`,
      'datagram.py': `import socket\ntry:\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('192.0.2.1', 53))\nexcept OSError as error:\n    print('refused', error)\n`,
      'with-asyncio.py': `import asyncio\nasync def main():\n    try:\n        await asyncio.open_connection('example.com', 443)\n    except OSError as error:\n        print('refused', error)\nasyncio.run(main())\n`,
      'loopback.py': `import socket, sys\nwith socket.create_connection(('localhost', int(sys.argv[1]))) as s:\n    print(s.recv(10).decode())\n`,
    },
    refused: [
      ['connect.py', 'spawnSync', '192.0.2.1:9', 'refused 101 [Errno 101] Network access is disabled in tests: 192.0.2.1:9\n'],
      ['resolve.py', 'spawn', 'example.com (DNS getaddrinfo)', 'refused [Errno -2] Network access is disabled in tests: example.com (DNS getaddrinfo)\n'],
      ['datagram.py', 'execFile', '192.0.2.1:53', 'refused [Errno 101] Network access is disabled in tests: 192.0.2.1:53\n'],
      ['with-asyncio.py', 'spawnSync', 'example.com (DNS getaddrinfo)', 'refused [Errno -2] Network access is disabled in tests: example.com (DNS getaddrinfo)\n'],
    ],
    loopback: 'loopback.py',
  },
  {
    name: 'Perl',
    program: 'perl',
    version: ['-e', 'printf("%vd", $^V)'],
    floor: { file: 'PerlFloor.pm', source: PERL_FLOOR, env: (dir) => ({ PERL5LIB: dir, PERL5OPT: '-MPerlFloor' }) },
    scripts: {
      'connect.pl': 'use IO::Socket::INET;\nIO::Socket::INET->new(PeerAddr => "192.0.2.1", PeerPort => 9) or print "refused $@\\n";\n',
      'resolve.pl': 'use IO::Socket::IP;\nIO::Socket::IP->new(PeerHost => "example.com", PeerPort => 443) or print "refused $@\\n";\n',
      'datagram.pl': 'use Socket;\nsocket(my $s, AF_INET, SOCK_DGRAM, 0);\nsend($s, "x", 0, pack_sockaddr_in(53, inet_aton("192.0.2.1"))) // print "refused $!\\n";\n',
      'lookup.pl': 'my @found = gethostbyname("example.org");\nprint "found ", scalar(@found), "\\n";\n',
      'loopback.pl': 'use IO::Socket::INET;\nmy $s = IO::Socket::INET->new("localhost:$ARGV[0]") or die $@;\nprint <$s>, "\\n";\n',
    },
    refused: [
      ['connect.pl', 'spawnSync', '192.0.2.1:9', 'refused IO::Socket::INET: connect: Network is unreachable\nNetwork access is disabled in tests: 192.0.2.1:9\n'],
      ['resolve.pl', 'execFile', 'example.com (DNS getaddrinfo)', 'refused Network access is disabled in tests: example.com (DNS getaddrinfo)\nNetwork access is disabled in tests: example.com (DNS getaddrinfo)\n'],
      ['datagram.pl', 'execFile', '192.0.2.1:53', 'refused Network is unreachable\nNetwork access is disabled in tests: 192.0.2.1:53\n'],
      ['lookup.pl', 'spawnSync', 'example.org (DNS gethostbyname)', 'found 0\nNetwork access is disabled in tests: example.org (DNS gethostbyname)\n'],
    ],
    loopback: 'loopback.pl',
  },
]

let t: TestSession | undefined
const output = () => t!.events.toolResultsFor('run')[0]!.text
const failure = (running: Promise<unknown>) =>
  running.then(
    () => 'passed',
    (error: Error) => error.message,
  )

describe.each(INTERPRETERS.map((interpreter) => [interpreter.name, interpreter] as const))('%s: its own sockets in a child process', (_name, interpreter) => {
  const found = spawnSync(interpreter.program, interpreter.version, { encoding: 'utf8' })
  const version = found.status === 0 ? found.stdout.trim() : undefined
  const by = `${interpreter.name} ${version}`
  let root: string
  let log: string
  let restore: () => void

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'pi-interpreter-guard-'))
    mkdirSync(join(root, 'floor'))
    writeFileSync(join(root, 'floor', interpreter.floor.file), interpreter.floor.source)
    for (const [name, script] of Object.entries(interpreter.scripts)) writeFileSync(join(root, name), script)
    log = join(root, 'floor.jsonl')
    const env: Record<string, string> = { ...interpreter.floor.env(join(root, 'floor')), FLOOR_LOG: log }
    const saved = Object.keys(env).map((name) => [name, process.env[name]] as const)
    Object.assign(process.env, env)
    restore = () => {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    }
  })

  afterAll(() => {
    restore()
    rmSync(root, { recursive: true, force: true })
  })

  afterEach(async () => {
    await t?.dispose()
    t = undefined
    // The floor was loaded beneath the guard (as a user's own module is) and stopped nothing.
    const floor = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown)
    expect(floor).toContain('loaded')
    expect(floor.filter((entry) => entry !== 'loaded')).toEqual([])
    writeFileSync(log, '')
  })

  const run = (way: string, args: string[]) => when('run it', [calls('run', { way, program: interpreter.program, args }), says('done')])

  it.skipIf(version === undefined).each(interpreter.refused)(
    '%s, started by %s: the call fails and the test fails naming the host, the interpreter, the child and the extension',
    async (script, way, target, printed) => {
      t = await createTestSession({ extensions: [EXTENSION] })
      const path = join(root, script)
      expect(await failure(t.run(run(way, [path])))).toBe(
        `Network access is disabled in tests: ${target}, which ${by} asked for itself, not through the proxy that child processes get, ` +
          `in the child process \`${interpreter.program} ${path}\`; it was refused; started by ${process.cwd()}/${EXTENSION.slice(2)} in session 1 of test "${expect.getState().currentTestName}" (extensions: ${EXTENSION}). ` +
          'A child process reaches no network in tests: answer the program with pi.exec and an exec rule, or mock node:child_process.',
      )
      expect(output()).toBe(printed)
    },
  )

  it.skipIf(version === undefined)('run by a shell: the same', async () => {
    t = await createTestSession({ extensions: [EXTENSION] })
    const [script, , target] = interpreter.refused[0]!
    await expect(t.run(run('shell -c', [join(root, script)]))).rejects.toThrow(
      `Network access is disabled in tests: ${target}, which ${by} asked for itself, not through the proxy that child processes get, in the child process \`sh -c "${interpreter.program} ${join(root, script)}"\``,
    )
  })

  it.skipIf(version === undefined)('reaches a server on loopback as before, and the test passes', async () => {
    const server: Server = createServer((socket) => socket.end('hello'))
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
    try {
      t = await createTestSession({ extensions: [EXTENSION] })
      await t.run(run('spawn', [join(root, interpreter.loopback), String((server.address() as { port: number }).port)]))
      expect(output()).toBe('hello\n')
    } finally {
      server.close()
    }
  })

  it.skipIf(version === undefined)('outside a session (the test body): refused all the same, and reported to the guard by the time spawnSync returns', () => {
    const blocked: string[] = []
    const release = guardNetwork((target) => blocked.push(target))
    try {
      const [script, , target, printed] = interpreter.refused[0]!
      const child = spawnSync(interpreter.program, [join(root, script)], { encoding: 'utf8' })
      expect(`${child.stdout}${child.stderr}`).toBe(printed)
      expect(blocked).toEqual([`${target}, which ${by} asked for itself, not through the proxy that child processes get, in the child process \`${interpreter.program} ${join(root, script)}\`; it was refused`])
    } finally {
      release()
    }
  })
})

// What each would run, were it started: it writes a file, and reaches for no network.
const skipsRoot = mkdtempSync(join(tmpdir(), 'pi-interpreter-skips-'))
afterAll(() => rmSync(skipsRoot, { recursive: true, force: true }))
const started = (program: string) => join(skipsRoot, `${program}.started`)
/** Each way: how the extension starts it, the words refused, the arguments; and a script whose #! line does it. */
const SKIPPING: { program: string; name: string; guard: string; ways: [string, string, string[]][]; script: [string, string] }[] = [
  {
    program: 'python3',
    name: 'Python',
    guard: "the network guard's sitecustomize",
    ways: [
      ['spawnSync', 'python3 -I', ['-I', '-c', `open('${started('python3')}', 'w')`]],
      ['shell -c', 'python3 -S', ['-BS', '-c', `"open('${started('python3')}', 'w')"`]],
    ],
    script: ['-I', `open('${started('python3')}', 'w')`],
  },
  {
    program: 'perl',
    name: 'Perl',
    guard: "the network guard's module",
    ways: [
      ['spawnSync', 'perl -T', ['-T', '-e', `open(my $f, '>', '${started('perl')}')`]],
      ['shell -c', 'perl -T', ['-wT', '-e', `"open(my \\$f, '>', '${started('perl')}')"`]],
    ],
    script: ['-T', `open(my $f, '>', '${started('perl')}');`],
  },
]

describe.each(SKIPPING.map((interpreter) => [interpreter.program, interpreter] as const))('%s started so that it skips its guard', (program, interpreter) => {
  const installed = spawnSync(program, ['-v'], { stdio: 'ignore' }).status === 0

  afterEach(async () => {
    await t?.dispose()
    t = undefined
  })

  it.skipIf(!installed).each(interpreter.ways)('started by %s as %s: refused at the spawn, named, and never runs', async (way, words, args) => {
    t = await createTestSession({ extensions: [EXTENSION] })
    const running = t.run(when('run it', [calls('run', { way, program, args }), says('done')]))
    expect(await failure(running)).toMatch(
      new RegExp(`^Network access is disabled in tests: ${words}, which starts ${interpreter.name} without ${interpreter.guard}, which child processes get, in the child process \`[^\`]*${program} -[^\`]*\`; it was not started; started by .*shell-out\\.ts in session 1 of test`),
    )
    expect(existsSync(started(program))).toBe(false)
  })

  it.skipIf(!installed)('started by its path, with the flag on its #! line: refused at the spawn, named, and never runs', async () => {
    const [flag, code] = interpreter.script
    const path = join(skipsRoot, `skips-${program}`)
    const where = spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).stdout.trim()
    writeFileSync(path, `#!${where} ${flag}\n${code}\n`)
    chmodSync(path, 0o755)
    t = await createTestSession({ extensions: [EXTENSION] })
    const running = t.run(when('run it', [calls('run', { way: 'spawnSync', program: path, args: [] }), says('done')]))
    expect(await failure(running)).toMatch(
      new RegExp(`^Network access is disabled in tests: ${program} ${flag} \\(the #! line of ${path}\\), which starts ${interpreter.name} without ${interpreter.guard}, which child processes get, in the child process \`${path}\`; it was not started; started by .*shell-out\\.ts in session 1 of test`),
    )
    expect(existsSync(started(program))).toBe(false)
  })
})
