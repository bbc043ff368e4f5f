#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
--auth-key: a peer without the key never holds the server's test slot.

Every connection to a keyed server waits in a gate for its HELLO and its
proof; only a peer that proved the key claims the slot. The gate holds at
most 16 connections, 4 from one source address (src/run/server.h), each
for one control timeout (10 s) in all, HELLO and AUTH together.

  dribble        a peer dribbling its HELLO, and one that sends HELLO and
                 never AUTH: a keyed client runs at once, not "busy"; the
                 dribbler is cut off 10 s after it connected, not 10 s
                 after its HELLO
  chained        keyless peers that reconnect as soon as they are refused
                 or timed out, for about 10 s: 5 keyed runs in a row, none
                 "busy"
  per_source     20 silent peers from 127.0.0.2: 4 wait in the gate, 16 are
                 told "busy" at once; a keyed client from 127.0.0.1 runs;
                 with the gate full (16, from 127.0.0.3-8) it is told
                 "busy" at once; once they go, it runs again
  busy_after_proof  two keyed raw peers in the gate: the first to prove the
                 key holds the server, the second is told "busy" at once
  sigterm        SIGTERM with 11 peers in the gate (silent, half a HELLO,
                 no AUTH) and a keyed test running:
                 the server exits within 2 s, every peer is closed, and
                 (under ASan) nothing leaks

The attackers bind to 127.0.0.2 and up (Linux routes all of 127/8 to lo),
so that the keyed client, from 127.0.0.1, is another source: from one
address, the attacker's 4 gate places would be the client's too.

    python3 tests/e2e/auth_gate.py /path/to/rdmaperf
"""
import hashlib
import hmac
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (ERROR, HELLO, QUICK, VERSION, LoudServer,  # noqa: E402
                    check, client, log, main, message,
                    parse_messages, recv_message, start, finish)

AUTH = 11  # src/proto/proto.h RP_MSG_AUTH
CTRL_TIMEOUT_S = 10  # src/run/run.h RP_CTRL_TIMEOUT_MS
GATE_MAX, GATE_PER_SOURCE = 16, 4  # src/run/server.h
FAST = 5.0  # seconds: a raw peer's answer that must come at once
KEYED_PEER = "127.0.0.1:"  # the keyed client's lines in the server's log
TIMED_OUT = "timed out"  # a gate peer cut off at the control timeout
SMALL = QUICK + ["-x", "tcp", "-o", "W", "-S", "4K", "-C", "2000"]
KEYS = tempfile.mkdtemp(prefix="rdmaperf-gate-")
KEY = os.path.join(KEYS, "key")
KEY_BYTES = b"open sesame"
KEYED_HELLO = {"proto": VERSION, "auth": "hmac-sha256", "nonce": "ab" * 32}


class GateServer(LoudServer):
    """A keyed server that logs."""

    def __init__(self, binary, extra=()):
        super().__init__(binary, ["--auth-key", KEY] + list(extra))


def peer(port, source="127.0.0.2"):
    """A raw control connection from @source."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s


def keyed_run(srv, extra=()):
    return client(srv.binary, srv.port, SMALL + ["--auth-key", KEY] +
                  list(extra), timeout=60)


def told_busy(r):
    return r.rc == 1 and "busy" in r.err


def log_lines(srv):
    return srv.stderr().splitlines()


def before_any_timeout(srv, since, mark, what, r):
    """In the server's log from line @since on, the keyed client's first
    line holding @mark comes before any gate peer was cut off at the
    control timeout: the server answered it while those peers were still
    in the gate, so it did not wait for one. That is the gate's promise;
    how long @r then ran is the machine's (its streams busy-poll, and the
    host has 2 cores under load), so its seconds are no measure of it."""
    lines = log_lines(srv)[since:]
    mine = [i for i, ln in enumerate(lines) if KEYED_PEER in ln and
            mark in ln]
    check(mine, lambda: "%s: no %r line for the keyed client in the "
          "server's log:\n%s\n%s" % (what, mark, r.describe(),
                                      "\n".join(lines)[-3000:]))
    late = [ln for ln in lines[:mine[0]] if TIMED_OUT in ln]
    check(not late, lambda: "%s: the server answered the keyed client only "
          "after a peer in the gate timed out (%.1f s):\n%s" %
          (what, r.seconds, "\n".join(lines[:mine[0] + 1])[-3000:]))


def ran_at_once(srv, what):
    """A keyed run that succeeds, neither told "busy" nor kept waiting for
    a peer in the gate; its seconds."""
    since = len(log_lines(srv))
    r = keyed_run(srv)
    check(r.rc == 0, lambda: "%s: the keyed client failed%s:\n%s\nserver:\n%s"
          % (what, " (busy)" if told_busy(r) else "", r.describe(),
             srv.stderr()[-3000:]))
    before_any_timeout(srv, since, ": test: ", what, r)
    return r.seconds


def closed_within(s, timeout):
    """Read @s until EOF; (seconds it took, messages), or (None, ...) when
    it is still open after @timeout."""
    t0 = time.monotonic()
    data = b""
    while True:
        left = timeout - (time.monotonic() - t0)
        if left <= 0:
            return None, data
        s.settimeout(left)
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            return None, data
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            return time.monotonic() - t0, data
        data += chunk


# ---- attackers -----------------------------------------------------------


class Dribbler(threading.Thread):
    """HELLO a byte at a time over @spread seconds, then silence; records
    how long after connecting the server closed the connection."""

    def __init__(self, port, spread):
        super().__init__(daemon=True)
        self.port, self.spread = port, spread
        self.closed_after, self.data, self.error = None, b"", None

    def run(self):
        try:
            s = peer(self.port)
            t0 = time.monotonic()
            msg = message(HELLO, KEYED_HELLO)
            for i in range(len(msg)):
                s.sendall(msg[i:i + 1])
                time.sleep(self.spread / len(msg))
            took, self.data = closed_within(s, CTRL_TIMEOUT_S + 15)
            if took is not None:
                self.closed_after = time.monotonic() - t0
            s.close()
        except OSError as e:
            self.error = e


def hello_no_auth(port, source="127.0.0.2"):
    """HELLO with a nonce, the server's AUTH read, no AUTH back."""
    s = peer(port, source)
    s.sendall(message(HELLO, KEYED_HELLO))
    m = recv_message(s)
    check(m[2] == AUTH, "want the server's AUTH, got %r" % (m,))
    return s


class Chain(threading.Thread):
    """Keyless connections, each opened as soon as the last one ended,
    until stopped: @kind "wrong" sends a made-up proof, "none" a HELLO
    without a key, "hold" a HELLO and then nothing (the server times it
    out)."""

    def __init__(self, port, kind, source):
        super().__init__(daemon=True)
        self.port, self.kind, self.source = port, kind, source
        self.stop = threading.Event()
        self.count = 0

    def one(self):
        s = peer(self.port, self.source)
        try:
            if self.kind == "none":
                s.sendall(message(HELLO, {"proto": VERSION}))
            else:
                s.sendall(message(HELLO, KEYED_HELLO))
            if self.kind == "wrong":
                s.recv(65536)
                s.sendall(message(AUTH, {"mac": "cd" * 32}))
            while not self.stop.is_set():
                r, _, _ = select.select([s], [], [], 0.1)
                if r and not s.recv(65536):
                    break
        finally:
            s.close()

    def run(self):
        while not self.stop.is_set():
            try:
                self.one()
                self.count += 1
            except OSError:
                pass
            time.sleep(0.01)  # the machine is shared


def proven(port, source="127.0.0.2"):
    """A raw peer with the key, stopped before its proof: (socket, the
    AUTH that proves it, to send)."""
    nc = os.urandom(32)
    s = peer(port, source)
    s.sendall(message(HELLO, {"proto": VERSION, "auth": "hmac-sha256",
                              "nonce": nc.hex()}))
    m = recv_message(s)
    check(m[2] == AUTH, "want the server's AUTH, got %r" % (m,))
    ns = bytes.fromhex(m[4]["nonce"])
    want = hmac.new(KEY_BYTES, b"rdmaperf-server" + nc + ns,
                    hashlib.sha256).hexdigest()
    check(m[4]["mac"] == want, "the server's proof is wrong: %r" % (m,))
    mac = hmac.new(KEY_BYTES, b"rdmaperf-client" + ns + nc,
                   hashlib.sha256).hexdigest()
    return s, message(AUTH, {"mac": mac})


# ---- cases -----------------------------------------------------------------


def test_busy_after_proof(binary):
    """Two keyed peers in the gate: the first to prove the key holds the
    server; the other, proving it next, is told "busy" at once."""
    with GateServer(binary) as srv:
        a, a_auth = proven(srv.port, "127.0.0.2")
        b, b_auth = proven(srv.port, "127.0.0.3")
        try:
            b.sendall(b_auth)
            m = recv_message(b)
            check(m[2] == HELLO and m[4].get("hostname"),
                  "a proven peer: want the server's HELLO, got %r" % (m,))
            t0 = time.monotonic()
            a.sendall(a_auth)
            took, data = closed_within(a, FAST)
            msgs = parse_messages(data)
            check(took is not None and [x[2] for x in msgs] == [ERROR] and
                  msgs[0][4].get("code") == "busy",
                  "the second proven peer: want ERROR busy and a close at "
                  "once, got %r after %r s" % (msgs, took))
            log("  the second proven peer was told busy after %.2f s" %
                (time.monotonic() - t0))
            leave([b])  # the server frees the slot before it closes
        finally:
            a.close()
            b.close()
        ran_at_once(srv, "after the proven peers")



def test_dribble(binary):
    with GateServer(binary) as srv:
        d = Dribbler(srv.port, spread=CTRL_TIMEOUT_S - 2)
        d.start()
        quiet = hello_no_auth(srv.port)
        time.sleep(0.5)
        try:
            took = ran_at_once(srv, "a dribbled HELLO and a missing AUTH")
            log("  keyed run during a dribble: %.2f s" % took)
            took = ran_at_once(srv, "again, same peers")
        finally:
            quiet.close()
        d.join(CTRL_TIMEOUT_S + 20)
        check(d.error is None, "the dribbler failed: %r" % d.error)
        log("  the dribbler (HELLO over %d s) was closed %s after it "
            "connected" % (CTRL_TIMEOUT_S - 2, "%.1f s" % d.closed_after
                           if d.closed_after else "never"))
        check(d.closed_after is not None and
              d.closed_after < CTRL_TIMEOUT_S + 2.5,
              "the gate must bound HELLO and AUTH together to %d s; the "
              "dribbler was closed after %r s" % (CTRL_TIMEOUT_S,
                                                   d.closed_after))
        msgs = parse_messages(d.data)
        check(msgs and msgs[-1][2] == ERROR, "the dribbler got %r, want an "
              "ERROR last" % (msgs,))
        check(srv.alive(), "the server died:\n" + srv.stderr())


def test_chained(binary):
    with GateServer(binary) as srv:
        chains = [Chain(srv.port, kind, "127.0.0.%d" % (2 + i))
                  for i, kind in enumerate(("wrong", "none", "hold",
                                            "hold"))]
        for c in chains:
            c.start()
        t0 = time.monotonic()
        try:
            time.sleep(0.5)
            for i in range(5):
                took = ran_at_once(srv, "keyed run %d of 5 among chained "
                                   "keyless peers" % (i + 1))
                log("  keyed run %d: %.2f s" % (i + 1, took))
                time.sleep(max(0.0, (i + 1) * 2.0 -
                               (time.monotonic() - t0)))
        finally:
            for c in chains:
                c.stop.set()
            for c in chains:
                c.join(5)
        log("  keyless connections meanwhile: %s in %.1f s" %
            (", ".join("%s %d" % (c.kind, c.count) for c in chains),
             time.monotonic() - t0))
        check(chains[0].count > 10 and chains[1].count > 10,
              "the chained peers hardly ran: %r" %
              [c.count for c in chains])
        check(srv.alive(), "the server died:\n" + srv.stderr())


def leave(socks):
    """Each of @socks leaves the gate: its end of the connection shut, and
    then the server's close awaited. The server takes a peer out of the
    gate before it closes the connection (server.c conn_main), so once
    every one has seen EOF, none of them counts against the gate; a close
    alone says nothing about when the server will have noticed."""
    for s in socks:
        s.shutdown(socket.SHUT_WR)
    for s in socks:
        took, _ = closed_within(s, FAST)
        check(took is not None, "a peer that left the gate: the server did "
              "not close its connection within %.0f s" % FAST)
        s.close()


def silent_peers(port, sources, n):
    """@n silent connections from each of @sources; after a second,
    (those still open, those told "busy" and closed)."""
    socks = [peer(port, src) for src in sources for _ in range(n)]
    held, busy = [], []
    deadline = time.monotonic() + 1.5
    data = {s: b"" for s in socks}
    open_ = set(socks)
    while open_ and time.monotonic() < deadline:
        r, _, _ = select.select(list(open_), [], [], 0.1)
        for s in r:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                chunk = b""
            data[s] += chunk
            if not chunk:
                open_.discard(s)
    for s in socks:
        if s in open_:
            held.append(s)
            continue
        msgs = parse_messages(data[s])
        check(len(msgs) == 1 and msgs[0][2] == ERROR and
              msgs[0][4].get("code") == "busy",
              "a peer over the gate's bound got %r, want ERROR busy" %
              (msgs,))
        busy.append(s)
        s.close()
    return held, busy


def test_per_source(binary):
    with GateServer(binary) as srv:
        held, busy = silent_peers(srv.port, ["127.0.0.2"], 20)
        log("  20 silent peers from 127.0.0.2: %d wait in the gate, %d "
            "told busy" % (len(held), len(busy)))
        try:
            check(len(held) == GATE_PER_SOURCE,
                  "want %d of 20 peers from one address in the gate, got "
                  "%d" % (GATE_PER_SOURCE, len(held)))
            ran_at_once(srv, "4 silent peers from 127.0.0.2 in the gate")
            leave(held)
            held, busy = silent_peers(
                srv.port, ["127.0.0.%d" % i for i in range(3, 9)], 4)
            log("  then 4 each from 127.0.0.3-8: %d in the gate, %d told "
                "busy" % (len(held), len(busy)))
            check(len(held) == GATE_MAX,
                  "want a full gate of %d, got %d" % (GATE_MAX, len(held)))
            since = len(log_lines(srv))
            r = keyed_run(srv)
            check(told_busy(r), lambda: "the gate is full: want 'busy':\n" +
                  r.describe())
            before_any_timeout(srv, since, "busy, turned away: the gate is "
                               "full", "the gate is full", r)
            leave(held)
        finally:
            for s in held:
                s.close()
        ran_at_once(srv, "the gate emptied")
        lines = [ln for ln in srv.stderr().splitlines()
                 if "busy, turned away" in ln and "127.0.0.2:" in ln]
        check(len(lines) >= 20 - GATE_PER_SOURCE, lambda: "want a log line "
              "per peer over the bound:\n" + srv.stderr()[-3000:])
        check(srv.alive(), "the server died:\n" + srv.stderr())


def test_sigterm(binary):
    srv = GateServer(binary)
    srv.start()
    socks, p = [], None
    try:
        socks = [peer(srv.port, "127.0.0.%d" % (3 + i % 3))
                 for i in range(9)]
        socks.append(hello_no_auth(srv.port, "127.0.0.6"))
        half = peer(srv.port, "127.0.0.6")  # half a HELLO, then silence
        half.sendall(message(HELLO, KEYED_HELLO)[:20])
        socks.append(half)
        p = start(binary, ["-c", "-a", "127.0.0.1", "-p", srv.port,
                           "--auth-key", KEY, "-x", "tcp", "-S", "4K",
                           "-t", "30", "--json"] + QUICK)
        time.sleep(1.5)
        check(p.poll() is None, lambda: "the -t 30 keyed client ended "
              "early:\n%s" % finish(p).describe())
        t0 = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        try:
            rc = srv.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            rc = None
        took = time.monotonic() - t0
        log("  SIGTERM with 11 peers in the gate and a test running: "
            "server exit %r after %.2f s" % (rc, took))
        check(rc is not None and took < 2.0,
              "the server took %.1f s to exit after SIGTERM (want < 2)" %
              took)
        err = srv.stderr()
        check("Sanitizer" not in err and "leak" not in err.lower(),
              lambda: "the server's exit is not clean:\n" + err[-4000:])
        check(rc == 0, "server exit %r after SIGTERM, want 0:\n%s" %
              (rc, err[-3000:]))
        for s in socks:
            closed, _ = closed_within(s, 1.0)
            check(closed is not None, "a peer in the gate is still open "
                  "after the server exited")
        r = finish(p, timeout=10)
        check(r.rc == 1, lambda: "the running keyed test: want exit 1 "
              "after the server's SIGTERM:\n" + r.describe())
    finally:
        for s in socks:
            s.close()
        if p is not None and p.poll() is None:
            p.kill()
            p.communicate()
        srv.stop()
        if srv.errfile:
            srv.errfile.close()


TESTS = [
    ("dribble", test_dribble),
    ("chained", test_chained),
    ("per_source", test_per_source),
    ("busy_after_proof", test_busy_after_proof),
    ("sigterm", test_sigterm),
]

if __name__ == "__main__":
    fd = os.open(KEY, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(KEY_BYTES)
    try:
        main(TESTS)
    finally:
        os.unlink(KEY)
        os.rmdir(KEYS)
