#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Addresses end to end over TCP (issue 10): IPv6 servers and clients, IPv6
literals in brackets, --loopback on ::1, a server with no -a reached over
IPv4 and IPv6, the data listener bound to the address the client reached
the server on (and to nothing else), and a name that does not resolve
saying so.

The data listener lives only while the server waits for the data
connections of a test, so the cases that look at it speak the control
protocol themselves and stop there: HELLO, TEST, SETUP (which names the
data port), then the listening sockets of the server's process in
/proc/net/tcp{,6}, then a connect to the data port on other local
addresses, which must be refused.

Skipped (exit 77) on a host without ::1.

    python3 tests/e2e/ipv6.py /path/to/rdmaperf
"""
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib  # noqa: E402
from e2elib import (ERROR, HELLO, QUICK, SETUP, TEST, Server, TestFailure,  # noqa: E402
                    check, free_port, hello_body, log, main, message,
                    recv_message, run, spec_body, wait_listening)

OPS = ("write", "read", "send")
SMALL = ["-x", "tcp", "-S", "4096", "-q", "4", "-C", "200"] + QUICK
BUSY_WITHIN = 10.0  # seconds a server may take to release a session


def have_v6_loopback():
    """None if ::1 can be listened on here, else why not."""
    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    except OSError as e:
        return "no IPv6 sockets on this host (%s)" % e
    try:
        s.bind(("::1", 0))
    except OSError as e:
        return "no ::1 on this host (%s)" % e
    finally:
        s.close()
    return None


class AddrServer(Server):
    """rdmaperf -s on @addr (None: no -a, every address) and a free port."""

    def __init__(self, binary, addr):
        super().__init__(binary)
        self.addr = addr

    def start(self):
        where = [] if self.addr is None else ["-a", self.addr]
        for _ in range(5):  # a free port can be taken again meanwhile
            self.port = free_port()
            self.errfile = tempfile.TemporaryFile(mode="w+")
            self.proc = subprocess.Popen(
                [self.binary, "-s", "-p", str(self.port), "--quiet"] + where,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=self.errfile)
            if wait_listening(self.port, self.proc):
                return self
            self.stop()
        raise TestFailure("the server on %s did not start listening: %s" %
                          (self.addr, self.stderr()))


def client_ok(binary, addr, port, args):
    """A client run against @addr that must succeed (retrying while the
    server says busy); returns its one result."""
    t0 = time.monotonic()
    while True:
        r = run(binary, ["-c", "-a", addr, "-p", port, "--json"] + list(args))
        if r.rc == 0 or not ('"busy"' in r.out and
                             time.monotonic() - t0 < BUSY_WITHIN):
            break
        time.sleep(0.1)
    check(r.rc == 0, lambda: "client on %s failed:\n%s" % (addr, r.describe()))
    return check_one_result(r, addr)


def check_one_result(r, addr):
    doc = r.json()
    check(doc.get("error") is None, lambda: "error %r\n%s" %
          (doc.get("error"), r.describe()))
    check(doc["config"].get("server") == addr, "config.server %r, want %r" %
          (doc["config"].get("server"), addr))
    res = doc.get("results")
    check(isinstance(res, list) and len(res) == 1, "results: %r" % res)
    check(res[0].get("ok") is True, lambda: "result not ok: %r" % res[0])
    check(res[0].get("bytes", 0) > 0 and res[0].get("messages") == 200,
          lambda: "bytes %r messages %r" % (res[0].get("bytes"),
                                            res[0].get("messages")))
    return res[0]


# ---- the data listener, seen in /proc ----------------------------------


def _decode(hexaddr, family):
    """An address of /proc/net/tcp{,6}: 32-bit words in host order."""
    raw = bytes.fromhex(hexaddr)
    if sys.byteorder == "little":
        raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    return socket.inet_ntop(family, raw)


def listeners(pid, port):
    """The addresses process @pid listens on at @port."""
    return [_decode(addr, family)
            for family, addr, p in e2elib.listening_sockets(pid)
            if p == port]


def raw_setup(addr, port):
    """A control connection to @addr that got as far as SETUP: (socket,
    the data port). Retries while the server is busy releasing."""
    t0 = time.monotonic()
    while True:
        s = socket.create_connection((addr, port), timeout=5)
        s.settimeout(15)
        s.sendall(message(HELLO, hello_body()))
        m = recv_message(s)
        if m[2] == HELLO:
            break
        s.close()
        check(m[2] == ERROR and m[4].get("code") == "busy" and
              time.monotonic() - t0 < BUSY_WITHIN,
              "HELLO answered with type %d: %r" % (m[2], m[4]))
        time.sleep(0.1)
    s.sendall(message(TEST, spec_body()))
    m = recv_message(s)
    check(m[2] == SETUP, "want SETUP, got type %d: %r" % (m[2], m[4]))
    ep = m[4].get("endpoint")
    check(isinstance(ep, dict) and isinstance(ep.get("port"), int),
          "SETUP without an endpoint port: %r" % m[4])
    return s, ep["port"]


def refused(addr, port):
    """True if nothing listens on @addr:@port."""
    try:
        socket.create_connection((addr, port), timeout=5).close()
    except ConnectionRefusedError:
        return True
    return False


def check_data_listener(srv, via, want, elsewhere):
    """Reach @srv over @via: its data listener must be on @want alone, and
    refuse connections on each address of @elsewhere."""
    s, dport = raw_setup(via, srv.port)
    try:
        got = listeners(srv.proc.pid, dport)
        check(got == [want], "reached over %s: the data listener (port %d) "
              "is bound to %r, want [%r]" % (via, dport, got, want))
        for other in elsewhere:
            check(refused(other, dport), "the data listener for %s also "
                  "takes connections on %s" % (want, other))
        s.sendall(message(ERROR, {"code": "client",
                                  "message": "e2e: seen enough"}))
    finally:
        s.close()
    check(srv.alive(), lambda: "the server died:\n" + srv.stderr())


# ---- the cases ---------------------------------------------------------


def test_v6_server(binary):
    """-s -a ::1, clients on ::1 and [::1], every operation."""
    with AddrServer(binary, "::1") as srv:
        errors = []
        for op in OPS:
            for addr in ("::1", "[::1]"):
                try:
                    client_ok(binary, addr, srv.port, SMALL + ["-o", op])
                except AssertionError as e:
                    errors.append("%s on %s: %s" % (op, addr, e))
        check(not errors, lambda: "\n".join(errors))


def test_v6_bracketed_server(binary):
    """-s -a [::1]: the brackets go on the server's side too."""
    with AddrServer(binary, "[::1]") as srv:
        client_ok(binary, "::1", srv.port, SMALL)


def test_loopback_v6(binary):
    for addr in ("::1", "[::1]"):
        r = run(binary, ["--loopback", "-a", addr, "--json"] + SMALL)
        check(r.rc == 0, lambda: "--loopback -a %s failed:\n%s" %
              (addr, r.describe()))
        check_one_result(r, addr)


def test_any_address_both_families(binary):
    """No -a: one server reached over 127.0.0.1 and ::1; each test's data
    listener on the address that client came in on."""
    with AddrServer(binary, None) as srv:
        for addr in ("127.0.0.1", "::1", "[::1]"):
            client_ok(binary, addr, srv.port, SMALL)
        check_data_listener(srv, "127.0.0.1", "127.0.0.1", ["::1"])
        check_data_listener(srv, "::1", "::1", ["127.0.0.1"])


def test_v4_data_listener_bound(binary):
    """-a 127.0.0.1: the data listener is on 127.0.0.1, not on every
    address (127.0.0.2 is this host too, ::1 another family)."""
    with AddrServer(binary, "127.0.0.1") as srv:
        check_data_listener(srv, "127.0.0.1", "127.0.0.1",
                            ["127.0.0.2", "::1"])
        client_ok(binary, "127.0.0.1", srv.port, SMALL)


def test_v6_data_listener_bound(binary):
    with AddrServer(binary, "::1") as srv:
        check_data_listener(srv, "::1", "::1", ["127.0.0.1"])


def test_unresolvable(binary):
    host = "no-such-host.invalid"
    r = run(binary, ["-c", "-a", host, "-p", free_port(), "--json"] + SMALL)
    check(r.rc == 1, lambda: "want exit 1:\n" + r.describe())
    doc = r.json()
    err = doc.get("error") or {}
    check(err.get("code") == "resolve", lambda: "error %r, want code "
          "\"resolve\"" % err)
    check(err.get("message", "").startswith("cannot resolve %s: " % host),
          lambda: "error message %r" % err.get("message"))

    r = run(binary, ["-c", "-a", host, "-p", free_port()] + SMALL)
    check(r.rc == 1, lambda: "want exit 1:\n" + r.describe())
    check("cannot resolve %s: " % host in r.err and
          "No route to host" not in r.err,
          lambda: "stderr does not say the name does not resolve:\n" +
          r.describe())

    # A server on such a name: one line naming it, exit 1.
    r = run(binary, ["-s", "-a", host, "-p", free_port()], timeout=20)
    lines = r.err.strip().splitlines()
    check(r.rc == 1 and len(lines) == 1 and
          lines[0].startswith("rdmaperf: cannot resolve %s: " % host),
          lambda: "want exit 1 and one line: cannot resolve %s:\n%s" %
          (host, r.describe()))


def test_malformed_brackets(binary):
    """An unbalanced bracket or a port after it is no address."""
    for addr in ("[::1", "[::1]:18520"):
        r = run(binary, ["-c", "-a", addr, "-p", free_port()] + SMALL)
        check(r.rc == 2 and addr in r.err and
              "No route to host" not in r.err,
              lambda: "-a %s: want a failure naming it:\n%s" %
              (addr, r.describe()))


TESTS = [
    ("v6_server", test_v6_server),
    ("v6_bracketed_server", test_v6_bracketed_server),
    ("loopback_v6", test_loopback_v6),
    ("any_address_both_families", test_any_address_both_families),
    ("v4_data_listener_bound", test_v4_data_listener_bound),
    ("v6_data_listener_bound", test_v6_data_listener_bound),
    ("unresolvable", test_unresolvable),
    ("malformed_brackets", test_malformed_brackets),
]

if __name__ == "__main__":
    why = have_v6_loopback()
    if why:
        log("SKIP: %s" % why)
        sys.exit(77)
    main(TESTS)
