// The network guard for Perl in a test's child processes. Perl's sockets (IO::Socket::INET, IO::Socket::IP,
// Socket's own calls, HTTP::Tiny) ignore the proxy variables, so a guarded child's PERL5OPT loads a module,
// from a dir its PERL5LIB names first, that refuses a connection or datagram to anything but loopback, and a
// name lookup, and tells the harness's proxy, which fails the test naming the host and the interpreter.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const MODULE = 'PiNetworkGuard'

/** The dir in the child's stand-ins dir that holds the guard's module, first on the child's PERL5LIB. */
export const PERL_GUARD_DIR = 'perl'

/** Writes the guard into `<standIns>/perl`. */
export function writePerlGuard(standIns: string): void {
  mkdirSync(join(standIns, PERL_GUARD_DIR))
  writeFileSync(join(standIns, PERL_GUARD_DIR, `${MODULE}.pm`), PERL_GUARD)
}

/** `PERL5OPT` loading the guard last, after the user's own modules: what they install sits beneath it. */
export function withPerlGuard(perlOpt: string | undefined, standIns: () => string | undefined): string | undefined {
  if (standIns() === undefined) return perlOpt
  const load = `-M${MODULE}`
  if (perlOpt === undefined || perlOpt.trim() === '') return load
  return perlOpt.split(/\s+/).includes(load) ? perlOpt : `${perlOpt} ${load}`
}

// Overrides through CORE::GLOBAL reach code compiled after the module loads: the script and every module it
// loads (IO::Socket's own connect). Socket's resolving functions are replaced in its package before anyone
// imports them. `perl -T` ignores PERL5OPT: docs/network-guard.md says so.
const PERL_GUARD = `# The network guard of vitest-environment-pi for this child process of a test (see its docs/network-guard.md).
package ${MODULE};
use strict;
use warnings;
no warnings 'redefine';
use Errno ();
use Scalar::Util ();
use Socket ();
use Symbol ();

my ($token, $port) = (($ENV{http_proxy} // '') =~ m{^http://([^:\\@/]+):[^\\@/]*\\@127\\.0\\.0\\.1:(\\d+)$});
my $by = sprintf('Perl %vd', $^V);

sub loopback {
    my ($host) = @_;
    return 1 if !defined $host || $host eq '' || lc($host) eq 'localhost';
    return 1 if $host =~ /^127\\.\\d+\\.\\d+\\.\\d+$/ || $host eq '::1' || $host =~ /^::ffff:127\\./i;
    return 0;
}

sub numeric { my ($host) = @_; return defined $host && ($host =~ /^\\d+\\.\\d+\\.\\d+\\.\\d+$/ || $host =~ /:/) }

sub target_of {
    my ($address) = @_;
    return undef unless defined $address && length($address) >= 2;
    my $family = eval { Socket::sockaddr_family($address) };
    return undef unless defined $family;
    if ($family == Socket::AF_INET()) {
        my ($p, $ip) = Socket::unpack_sockaddr_in($address);
        my $host = Socket::inet_ntoa($ip);
        return loopback($host) ? undef : "$host:$p";
    }
    if ($family == Socket::AF_INET6()) {
        my ($p, $ip) = Socket::unpack_sockaddr_in6($address);
        my $host = Socket::inet_ntop(Socket::AF_INET6(), $ip);
        return loopback($host) ? undef : "[$host]:$p";
    }
    return undef;
}

# Tells the proxy, which fails the test; without it (the child dropped its variables) the call still fails.
sub tell_proxy {
    my ($target) = @_;
    return unless defined $port;
    my $body = '{"target":"' . ($target =~ s/(["\\\\])/\\\\$1/gr) . '","by":"' . $by . '"}';
    return unless eval { require MIME::Base64; 1 };
    my $auth = MIME::Base64::encode_base64("$token:", '');
    socket(my $teller, Socket::AF_INET(), Socket::SOCK_STREAM(), 0) or return;
    if (CORE::connect($teller, Socket::pack_sockaddr_in($port, Socket::inet_aton('127.0.0.1')))) {
        my $request = "POST /refused-socket HTTP/1.1\\r\\nHost: 127.0.0.1:$port\\r\\nProxy-Authorization: Basic $auth\\r\\n"
            . "Content-Type: application/json\\r\\nContent-Length: " . length($body) . "\\r\\nConnection: close\\r\\n\\r\\n$body";
        CORE::send($teller, $request, 0);
        while (sysread($teller, my $chunk, 4096)) {}
    }
    close($teller);
}

sub refuse {
    my ($target) = @_;
    tell_proxy($target);
    warn "Network access is disabled in tests: $target\\n";
    $! = Errno::ENETUNREACH();
    return;
}

my $next_connect = defined &CORE::GLOBAL::connect ? \\&CORE::GLOBAL::connect : sub { CORE::connect($_[0], $_[1]) };
*CORE::GLOBAL::connect = sub (*$) {
    my ($socket, $address) = @_;
    my $target = target_of($address);
    if (defined $target) { refuse($target); return 0 }
    return $next_connect->(Symbol::qualify_to_ref($socket, scalar caller), $address);
};

my $next_send = defined &CORE::GLOBAL::send ? \\&CORE::GLOBAL::send : sub { @_ > 3 ? CORE::send($_[0], $_[1], $_[2], $_[3]) : CORE::send($_[0], $_[1], $_[2]) };
*CORE::GLOBAL::send = sub (*$$;$) {
    my ($socket, @rest) = @_;
    my $target = @rest > 2 ? target_of($rest[2]) : undef;
    if (defined $target) { refuse($target); return undef }
    return $next_send->(Symbol::qualify_to_ref($socket, scalar caller), @rest);
};

# Name lookups: a query for any name but localhost and an address.
sub refused_name { my ($name, $how) = @_; refuse("$name (DNS $how)"); return }
my $next_gethostbyname = defined &CORE::GLOBAL::gethostbyname ? \\&CORE::GLOBAL::gethostbyname : sub { CORE::gethostbyname($_[0]) };
*CORE::GLOBAL::gethostbyname = sub ($) {
    my ($name) = @_;
    return refused_name($name, 'gethostbyname') unless loopback($name) || numeric($name);
    return $next_gethostbyname->($name);
};
my $inet_aton = \\&Socket::inet_aton;
*Socket::inet_aton = sub {
    my ($name) = @_;
    return refused_name($name, 'inet_aton') unless loopback($name) || numeric($name);
    return $inet_aton->(@_);
};
my $getaddrinfo = \\&Socket::getaddrinfo;
*Socket::getaddrinfo = sub {
    my ($name) = @_;
    unless (loopback($name) || numeric($name)) {
        refuse("$name (DNS getaddrinfo)");
        return (Scalar::Util::dualvar(Socket::EAI_NONAME(), "Network access is disabled in tests: $name (DNS getaddrinfo)"));
    }
    return $getaddrinfo->(@_);
};

1;
`
