// Python's own sockets in a test's child processes, which ignore the proxy variables: the guard Python loads
// at its start (sitecustomize, on the child's PYTHONPATH) refuses a connection, a datagram and a DNS query
// beyond loopback, and the test fails naming the host, the interpreter, the child, the extension and the test.
// Beneath the guard lies a floor: a sitecustomize of the test's own, which the guard runs first (as it runs a
// user's), records what would leave loopback and refuses it. Nothing leaves the machine, whatever the guard does.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { calls, createTestSession, says, when, type TestSession } from '../environment/index.js'
import { guardNetwork } from '../src/isolation/network-guard.js'

const EXTENSION = './test/fixtures/network-children/shell-out.ts'
const python = spawnSync('python3', ['-c', 'import sys; print(sys.version.split()[0])'], { encoding: 'utf8' })
const version = python.status === 0 ? python.stdout.trim() : undefined

const FLOOR = `import json, os, socket
def record(what):
    with open(os.environ['PYTHON_FLOOR_LOG'], 'a') as log:
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

const SCRIPTS = {
  'connect.py': `import socket\ntry:\n    socket.socket().connect(('192.0.2.1', 9))\nexcept OSError as error:\n    print('refused', error.errno, error)\n`,
  'resolve.py': `import socket\ntry:\n    socket.create_connection(('example.com', 80), timeout=5)\nexcept OSError as error:\n    print('refused', error)\n`,
  'datagram.py': `import socket\ntry:\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('192.0.2.1', 53))\nexcept OSError as error:\n    print('refused', error)\n`,
  'with-asyncio.py': `import asyncio\nasync def main():\n    try:\n        await asyncio.open_connection('example.com', 443)\n    except OSError as error:\n        print('refused', error)\nasyncio.run(main())\n`,
  'loopback.py': `import socket, sys\nwith socket.create_connection(('localhost', int(sys.argv[1]))) as s:\n    print(s.recv(10).decode())\n`,
}

let root: string
let log: string
let t: TestSession | undefined
const saved = { PYTHONPATH: process.env.PYTHONPATH, PYTHON_FLOOR_LOG: process.env.PYTHON_FLOOR_LOG }

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-python-guard-'))
  mkdirSync(join(root, 'floor'))
  writeFileSync(join(root, 'floor', 'sitecustomize.py'), FLOOR)
  for (const [name, script] of Object.entries(SCRIPTS)) writeFileSync(join(root, name), script)
  log = join(root, 'floor.jsonl')
  process.env.PYTHONPATH = join(root, 'floor')
  process.env.PYTHON_FLOOR_LOG = log
})

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  rmSync(root, { recursive: true, force: true })
})

afterEach(async () => {
  await t?.dispose()
  t = undefined
  // The floor was loaded beneath the guard (as a user's own sitecustomize is) and stopped nothing.
  const floor = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown)
  expect(floor).toContain('loaded')
  expect(floor.filter((entry) => entry !== 'loaded')).toEqual([])
  writeFileSync(log, '')
})

const run = (way: string, args: string[]) => when('run python', [calls('run', { way, program: 'python3', args }), says('done')])
const output = () => t!.events.toolResultsFor('run')[0]!.text
const failure = (running: Promise<unknown>) =>
  running.then(
    () => 'passed',
    (error: Error) => error.message,
  )

describe.skipIf(version === undefined)("Python's own sockets in a child process", () => {
  it.each([
    ['connect.py', 'spawnSync', '192.0.2.1:9', 'refused 101 [Errno 101] Network access is disabled in tests: 192.0.2.1:9'],
    ['resolve.py', 'spawn', 'example.com (DNS getaddrinfo)', 'refused [Errno -2] Network access is disabled in tests: example.com (DNS getaddrinfo)'],
    ['datagram.py', 'execFile', '192.0.2.1:53', 'refused [Errno 101] Network access is disabled in tests: 192.0.2.1:53'],
    ['with-asyncio.py', 'spawnSync', 'example.com (DNS getaddrinfo)', 'refused [Errno -2] Network access is disabled in tests: example.com (DNS getaddrinfo)'],
  ])('%s, started by %s: Python gets an error and the test fails naming the host, Python, the child and the extension', async (script, way, target, printed) => {
    t = await createTestSession({ extensions: [EXTENSION] })
    const path = join(root, script)
    expect(await failure(t.run(run(way, [path])))).toBe(
      `Network access is disabled in tests: ${target}, which Python ${version} asked for itself, not through the proxy that child processes get, ` +
        `in the child process \`python3 ${path}\`; it was refused; started by ${process.cwd()}/${EXTENSION.slice(2)} in session 1 of test "${expect.getState().currentTestName}" (extensions: ${EXTENSION}). ` +
        'A child process reaches no network in tests: answer the program with pi.exec and an exec rule, or mock node:child_process.',
    )
    expect(output()).toBe(`${printed}\n`)
  })

  it('run by a shell: the same', async () => {
    t = await createTestSession({ extensions: [EXTENSION] })
    await expect(t.run(when('run', [calls('run', { way: 'shell -c', program: 'python3', args: [join(root, 'connect.py')] }), says('done')]))).rejects.toThrow(
      `Network access is disabled in tests: 192.0.2.1:9, which Python ${version} asked for itself, not through the proxy that child processes get, in the child process \`sh -c "python3 ${join(root, 'connect.py')}"\``,
    )
  })

  it('reaches a server on loopback as before, and the test passes', async () => {
    const server: Server = createServer((socket) => socket.end('hello'))
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
    try {
      t = await createTestSession({ extensions: [EXTENSION] })
      await t.run(run('spawn', [join(root, 'loopback.py'), String((server.address() as { port: number }).port)]))
      expect(output()).toBe('hello\n')
    } finally {
      server.close()
    }
  })

  it('outside a session (the test body): refused all the same, and reported to the guard by the time spawnSync returns', () => {
    const blocked: string[] = []
    const release = guardNetwork((target) => blocked.push(target))
    try {
      const child = spawnSync('python3', [join(root, 'connect.py')], { encoding: 'utf8' })
      expect(child.stdout).toBe('refused 101 [Errno 101] Network access is disabled in tests: 192.0.2.1:9\n')
      expect(blocked).toEqual([`192.0.2.1:9, which Python ${version} asked for itself, not through the proxy that child processes get, in the child process \`python3 ${join(root, 'connect.py')}\`; it was refused`])
    } finally {
      release()
    }
  })
})
