// The network guard for Python in a test's child processes. Python's own sockets ignore the proxy variables
// (a raw socket, asyncio, aiohttp), so a guarded child's PYTHONPATH starts with a dir whose `sitecustomize`
// Python loads at its start: it refuses a connection or datagram to anything but loopback, and a DNS query,
// and tells the harness's proxy, which fails the test naming the host and the interpreter.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The dir in the child's stand-ins dir that holds the guard, first on the child's PYTHONPATH. */
export const PYTHON_GUARD_DIR = 'python'

/** Writes the guard into `<standIns>/python`. */
export function writePythonGuard(standIns: string): void {
  mkdirSync(join(standIns, PYTHON_GUARD_DIR))
  writeFileSync(join(standIns, PYTHON_GUARD_DIR, 'sitecustomize.py'), PYTHON_GUARD)
}

// Python 3 only, in syntax Python 2 still parses (a `python` that is 2 loads it and is left alone).
// Refused: OSError ENETUNREACH for a connection, as an unreachable network gives; gaierror for a name.
// `python -I`, `-E` or `-S` skips PYTHONPATH or sitecustomize: docs/network-guard.md says so.
const PYTHON_GUARD = `# The network guard of vitest-environment-pi for this child process of a test (see its docs/network-guard.md).
import os as _os
import sys as _sys


def _run_hidden_sitecustomize():
    # The sitecustomize this one hides on sys.path runs first: what it installs sits beneath the guard.
    import importlib.machinery
    import importlib.util
    here = _os.path.dirname(_os.path.abspath(__file__))
    path = [entry for entry in _sys.path if _os.path.abspath(entry or _os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec('sitecustomize', path)
    if spec is not None and spec.loader is not None:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


def _install_guard():
    import errno
    import json
    import socket

    by = 'Python ' + _sys.version.split()[0]
    real_connect = socket.socket.connect
    proxy = _os.environ.get('http_proxy', '')
    credentials, _, proxy_port = proxy[len('http://'):].rpartition('@127.0.0.1:')
    token = credentials.split(':')[0] if proxy.startswith('http://') and proxy_port.isdigit() else None

    def address_of(host):
        host = host.decode('ascii', 'replace') if isinstance(host, bytes) else host
        host = host.strip('[]').split('%')[0].lower()
        for family in (socket.AF_INET, socket.AF_INET6):
            try:
                return host, family, socket.inet_pton(family, host)
            except (OSError, ValueError):
                pass
        return host, None, None

    def loopback(host):
        name, family, packed = address_of(host)
        if family == socket.AF_INET:
            return packed[0] == 127
        if family == socket.AF_INET6:
            mapped = packed[:12] == b'\\0' * 10 + b'\\xff\\xff'
            return packed == b'\\0' * 15 + b'\\x01' or (mapped and packed[12] == 127)
        return name in ('localhost', '')

    def tell(target):
        # The proxy fails the test; without it (the child dropped its variables) the error still refuses.
        if token is None:
            return
        body = json.dumps({'target': target, 'by': by}).encode()
        head = 'POST /refused-socket HTTP/1.1\\r\\nHost: 127.0.0.1:%s\\r\\nProxy-Authorization: Basic %s\\r\\n' % (
            proxy_port, __import__('base64').b64encode((token + ':').encode()).decode())
        head += 'Content-Type: application/json\\r\\nContent-Length: %d\\r\\nConnection: close\\r\\n\\r\\n' % len(body)
        teller = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            teller.settimeout(5)
            real_connect(teller, ('127.0.0.1', int(proxy_port)))
            teller.sendall(head.encode() + body)
            while teller.recv(4096):
                pass
        except OSError:
            pass
        finally:
            teller.close()

    def refused(target, error=OSError, code=errno.ENETUNREACH):
        tell(target)
        return error(code, 'Network access is disabled in tests: ' + target)

    def target_of(sock, address):
        if sock.family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(address, tuple) or len(address) < 2:
            return None
        if loopback(address[0]):
            return None
        host = address_of(address[0])[0]
        return ('[%s]:%s' if ':' in host else '%s:%s') % (host, address[1])

    def guard_method(name, address_in, returns_code=False):
        method = getattr(socket.socket, name)

        def guarded(self, *args):
            address = address_in(args)
            target = None if address is None else target_of(self, address)
            if target is not None:
                error = refused(target)
                if returns_code:
                    return error.errno
                raise error
            return method(self, *args)
        guarded.__name__ = name
        setattr(socket.socket, name, guarded)

    # connect(address), sendto(data[, flags], address), sendmsg(buffers[, ancdata[, flags[, address]]]).
    guard_method('connect', lambda args: args[0] if args else None)
    guard_method('connect_ex', lambda args: args[0] if args else None, returns_code=True)
    guard_method('sendto', lambda args: args[-1] if len(args) > 1 else None)
    guard_method('sendmsg', lambda args: args[3] if len(args) > 3 else None)

    def guard_lookup(name, allows):
        lookup = getattr(socket, name)

        def guarded(host, *args, **kwargs):
            if not allows(host, *args):
                shown = address_of(host[0] if isinstance(host, tuple) else host)[0]
                raise refused('%s (DNS %s)' % (shown, name), socket.gaierror, socket.EAI_NONAME)
            return lookup(host, *args, **kwargs)
        guarded.__name__ = name
        setattr(socket, name, guarded)

    # A name is resolved by a query, but for localhost and an address; a reverse lookup is one, but for loopback.
    forward = lambda host, *rest: host is None or loopback(host) or address_of(host)[1] is not None
    guard_lookup('getaddrinfo', forward)
    guard_lookup('gethostbyname', forward)
    guard_lookup('gethostbyname_ex', forward)
    guard_lookup('gethostbyaddr', lambda host: loopback(host))
    guard_lookup('getnameinfo', lambda address, flags=0: loopback(address[0]) or bool(flags & socket.NI_NUMERICHOST))


if _sys.version_info[0] >= 3:
    try:
        _run_hidden_sitecustomize()
    finally:
        _install_guard()
`
