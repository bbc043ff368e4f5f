#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
One long-running server against hostile and broken clients, in sequence;
after each, a normal client run must succeed, proving the server survived
and released the session. The control messages are built by hand
(src/proto/proto.h: u32 magic "RDPF", u16 version, u16 type, u32 length,
big-endian, then a JSON object).

    python3 tests/e2e/server_robust.py /path/to/rdmaperf
"""
import os
import select
import signal
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (  # noqa: E402
    BYE, ERROR, HELLO, MAGIC, QUICK, TEST, VERSION, Server, TestFailure,
    check, check_error_message, client, client_ok_eventually, ctl_connect,
    finish, header, hello_body, log, main, message, parse_messages,
    SETUP, read_to_eof, recv_message, spec_body, start)

NORMAL = ["-x", "tcp", "-o", "write", "-S", "4096", "-q", "8", "-C", "2000"] \
    + QUICK
CTRL_TIMEOUT_S = 10  # RP_CTRL_TIMEOUT_MS: the server's wait for one message
CLOSE_WAIT_S = 15  # how long we wait for the server to hang up on us


def normal_run(srv, what, within=10.0):
    """The server must still be there and serve a whole test."""
    check(srv.alive(), "the server died after %s:\n%s" % (what, srv.stderr()))
    doc, took = client_ok_eventually(srv.binary, srv.port, NORMAL, within)
    r = doc["results"][0]
    check(doc["error"] is None and r["ok"] and r["messages"] == 2000,
          "after %s: a normal run did not complete: %r" % (what, doc["error"]))
    return took


BUSY_RETRY_S = 5.0


class Busy(Exception):
    """The server turned us away: it is still releasing the last test."""


def retry_busy(fn, what):
    """
    fn() again while the server answers "busy", for at most BUSY_RETRY_S.
    A client may see its test end (it sent BYE) a moment before the server
    has released the session (src/run/server.c clears busy last), so the
    first connection after a test can be turned away; we say so when it
    happens, and a server that stays busy still fails the test.
    """
    t0 = time.monotonic()
    n = 0
    while True:
        try:
            out = fn()
        except Busy:
            n += 1
            check(time.monotonic() - t0 < BUSY_RETRY_S,
                  "%s: the server still answers busy after %.0f s" %
                  (what, BUSY_RETRY_S))
            time.sleep(0.05)
            continue
        if n:
            log("  note: %s: turned away as busy %d time(s) over %.2f s "
                "after the previous test had ended" %
                (what, n, time.monotonic() - t0))
        return out


def busy_reply(msgs):
    return len(msgs) == 1 and msgs[0][2] == ERROR and \
        msgs[0][4].get("code") == "busy"


def expect_error_then_close(sock, code=None, words=()):
    """The server answers exactly one ERROR, then hangs up."""
    data = read_to_eof(sock, CLOSE_WAIT_S)
    msgs = parse_messages(data)
    if code != "busy" and busy_reply(msgs):
        raise Busy()
    check(len(msgs) == 1, "want exactly one ERROR then close, got %r" % msgs)
    return check_error_message(msgs[0], code, words)


def unsolicited_busy(sock):
    """A busy server answers at once, before we say anything."""
    r, _, _ = select.select([sock], [], [], 0.05)
    if r:
        data = read_to_eof(sock, CLOSE_WAIT_S)
        if busy_reply(parse_messages(data)):
            raise Busy()
        raise TestFailure("the server spoke first: %r" % data)


def raw_exchange(srv, payload, code=None, words=()):
    def once():
        s = ctl_connect(srv.port)
        try:
            if code != "busy":
                unsolicited_busy(s)
            s.sendall(payload)
            return expect_error_then_close(s, code, words)
        finally:
            s.close()
    return retry_busy(once, "sending %r" % payload[:16])


def hello(sock, version=VERSION):
    sock.sendall(message(HELLO, hello_body(), version=version))
    m = recv_message(sock)
    magic, ver, mtype, length, body = m
    check(magic == MAGIC and ver >> 8 == VERSION >> 8,
          "HELLO reply magic 0x%08x version 0x%04x" % (magic, ver))
    if mtype == ERROR and body.get("code") == "busy":
        raise Busy()
    check(mtype == HELLO, "want a HELLO reply, got type %d: %r" % (mtype, body))
    check(body.get("proto") == VERSION, "HELLO reply proto %r, want %d" %
          (body.get("proto"), VERSION))
    check(isinstance(body.get("hostname"), str) and body["hostname"],
          "HELLO reply without hostname: %r" % body)
    return body


def session(srv, version=VERSION, timeout=15.0):
    """A control connection past HELLO: the server's session is ours."""
    def once():
        s = ctl_connect(srv.port, timeout)
        try:
            hello(s, version)
        except BaseException:
            s.close()
            raise
        return s
    return retry_busy(once, "HELLO")


def start_long_client(srv, seconds):
    """A -t @seconds client that is still running 1 s later."""
    args = ["-c", "-a", "127.0.0.1", "-p", srv.port, "-x", "tcp", "-S",
            "4096", "-q", "8", "-t", seconds, "--json"] + QUICK

    def once():
        p = start(srv.binary, args)
        time.sleep(1.0)
        if p.poll() is None:
            return p
        res = finish(p)
        if res.rc == 1 and '"busy"' in res.out:
            raise Busy()
        raise TestFailure("the -t %s client ended early:\n%s" %
                          (seconds, res.describe()))
    return retry_busy(once, "a -t %s client" % seconds)


# ---- the cases ---------------------------------------------------------


def case_garbage(srv):
    # Exactly a header's worth: the server reads 12 bytes, finds no magic.
    raw_exchange(srv, b"GET / HTTP/1", "protocol", ["magic"])
    normal_run(srv, "12 bytes of garbage")
    # More garbage than it reads: it may reset rather than close; either
    # way it must survive.
    def once():
        s = ctl_connect(srv.port)
        try:
            unsolicited_busy(s)
            s.sendall(os.urandom(4096))
            try:
                read_to_eof(s, CLOSE_WAIT_S)
            except ConnectionResetError:
                pass
        finally:
            s.close()
    retry_busy(once, "4 KiB of random bytes")
    normal_run(srv, "4 KiB of random bytes")


def case_wrong_magic(srv):
    raw_exchange(srv, header(HELLO, 0, magic=0x52445047), "protocol",
                 ["magic"])
    normal_run(srv, "a wrong magic")


def case_future_major(srv):
    raw_exchange(srv, header(HELLO, 0, version=0x0300), "protocol",
                 ["version"])
    normal_run(srv, "protocol version 0x0300")


def case_newer_minor(srv):
    # Same major, newer minor: accepted (the receiver checks the major).
    s = session(srv, version=0x02ff)
    try:
        s.sendall(message(BYE))
        s.shutdown(socket.SHUT_WR)
        read_to_eof(s, CLOSE_WAIT_S)
    finally:
        s.close()
    normal_run(srv, "protocol version 0x02ff")


def case_oversize(srv):
    raw_exchange(srv, header(HELLO, 1 << 31), "protocol", ["large"])
    normal_run(srv, "a 2 GiB length")
    raw_exchange(srv, header(HELLO, (1 << 20) + 1), "protocol", ["large"])
    normal_run(srv, "a length of 1 MiB + 1")


def case_unknown_type_and_bad_body(srv):
    raw_exchange(srv, header(99, 0), "protocol")
    normal_run(srv, "message type 99")
    raw_exchange(srv, header(HELLO, 3) + b"[1]", "protocol", ["malformed"])
    normal_run(srv, "a body that is not a JSON object")
    # TEST before HELLO: out of order.
    raw_exchange(srv, message(TEST, spec_body()), "protocol",
                 ["HELLO", "TEST"])
    normal_run(srv, "TEST before HELLO")


def case_bad_spec(srv):
    s = session(srv)
    try:
        s.sendall(message(TEST, spec_body(size=0)))
        expect_error_then_close(s, "spec", ["size"])
    finally:
        s.close()
    normal_run(srv, "a TEST of size 0")
    s = session(srv)
    try:
        bad = spec_body()
        del bad["queue_depth"]
        s.sendall(message(TEST, bad))
        expect_error_then_close(s, "spec", ["queue_depth"])
    finally:
        s.close()
    normal_run(srv, "a TEST without queue_depth")


def case_error_in_setup(srv):
    # A client whose data connection failed says ERROR while the server
    # waits for it; then one that just goes away at that point.
    for goodbye in ("error", "close"):
        s = session(srv)
        try:
            s.sendall(message(TEST, spec_body()))
            m = recv_message(s)
            check(m[2] == SETUP, "want SETUP, got type %d: %r" % (m[2], m[4]))
            if goodbye == "error":
                s.sendall(message(ERROR, {"code": "transport",
                                          "message": "could not connect"}))
        finally:
            s.close()
        check(srv.alive(), "the server died after a client's %s in setup:\n%s"
              % (goodbye, srv.stderr()))
        took = normal_run(srv, "a client's %s during setup" % goodbye)
        check(took < 5, "the server stayed busy %.1f s after the client's %s"
              % (took, goodbye))


def case_vanish(srv):
    for _ in range(3):
        socket.create_connection(("127.0.0.1", srv.port), 5).close()
    normal_run(srv, "clients that connect and vanish")


def case_client_killed(srv):
    p = start_long_client(srv, 5)
    p.send_signal(signal.SIGKILL)
    p.wait()
    took = normal_run(srv, "a client killed mid-test", within=10.0)
    log("  a normal run succeeded %.2f s after the SIGKILL" % took)


def case_stalled_hello(srv):
    """A client that says HELLO and nothing more holds the server: another
    is told busy; once it hangs up the server is free again."""
    s = session(srv)
    try:
        r = client(srv.binary, srv.port, NORMAL, timeout=30)
        check(r.rc == 1 and "busy" in r.err,
              lambda: "a second client while a session is open: want exit "
              "1 and 'busy' on stderr\n" + r.describe())
        r = client(srv.binary, srv.port, NORMAL + ["--json"], timeout=30)
        check(r.rc == 1, lambda: "busy, --json: want exit 1\n" + r.describe())
        doc = r.json()
        check(doc["error"] and doc["error"]["code"] == "busy",
              "busy, --json: error %r" % doc["error"])
        # The turned-away connection gets a well-formed ERROR "busy".
        raw_exchange(srv, b"", "busy")
    finally:
        s.close()
    normal_run(srv, "a stalled HELLO that hung up")


def case_stalled_timeout(srv):
    """A client that says HELLO and then nothing is timed out by the server
    after about RP_CTRL_TIMEOUT_MS, with an ERROR, and the server is free."""
    s = session(srv, timeout=CTRL_TIMEOUT_S + 20)
    try:
        t0 = time.monotonic()
        data = read_to_eof(s, CTRL_TIMEOUT_S + 20)
        waited = time.monotonic() - t0
        msgs = parse_messages(data)
        check(len(msgs) == 1, "want one ERROR then close, got %r" % msgs)
        check_error_message(msgs[0], "protocol", ["timed out"])
        check(CTRL_TIMEOUT_S - 2 <= waited <= CTRL_TIMEOUT_S + 5,
              "the server hung up %.1f s after HELLO; want about %d s" %
              (waited, CTRL_TIMEOUT_S))
    finally:
        s.close()
    normal_run(srv, "a stalled HELLO timed out")


def case_busy_during_test(srv):
    first = start_long_client(srv, 3)
    try:
        second = client(srv.binary, srv.port, NORMAL, timeout=30)
    finally:
        res = finish(first, timeout=60)
    check(second.rc == 1 and "busy" in second.err,
          lambda: "a client during a running test: want exit 1 and 'busy'"
          "\n%s\nthe running test:\n%s" %
          (second.describe(), res.describe()))
    check(res.rc == 0, lambda: "the running test failed after a client was "
          "turned away:\n" + res.describe())
    doc = res.json()
    rr = doc["results"][0]
    check(doc["error"] is None and rr["ok"] and rr["messages"] > 0 and
          rr["seconds"] >= 2.5,
          "the running test: error %r messages %r seconds %r" %
          (doc["error"], rr["messages"], rr["seconds"]))
    normal_run(srv, "a busy refusal")



def cpu_seconds(pid):
    """User + system CPU time of process @pid so far, from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_out_of_descriptors(binary):
    """
    A server out of file descriptors cannot accept the connection waiting
    in its queue, and poll() keeps saying "readable": it must pause, not
    spin a core, and serve again once descriptors free up.
    """
    import resource
    with Server(binary) as srv:
        pid = srv.proc.pid
        nfd = len(os.listdir("/proc/%d/fd" % pid))
        old = resource.prlimit(pid, resource.RLIMIT_NOFILE)
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (nfd, old[1]))
        queued = socket.create_connection(("127.0.0.1", srv.port), 5)
        time.sleep(0.3)  # it has seen the connection and failed on it
        c0 = cpu_seconds(pid)
        time.sleep(1.0)
        used = cpu_seconds(pid) - c0
        queued.close()
        resource.prlimit(pid, resource.RLIMIT_NOFILE, old)
        check(srv.alive(), "the server died out of descriptors:\n" +
              srv.stderr())
        check(used < 0.3, "the server used %.2f s of CPU in 1 s while it "
              "could not accept (spinning)" % used)
        normal_run(srv, "running out of descriptors")


CASES = [
    ("a_garbage", case_garbage),
    ("b_wrong_magic", case_wrong_magic),
    ("c_future_major", case_future_major),
    ("c2_newer_minor", case_newer_minor),
    ("d_oversize", case_oversize),
    ("d2_bad_type_body_order", case_unknown_type_and_bad_body),
    ("e_bad_spec", case_bad_spec),
    ("e2_error_in_setup", case_error_in_setup),
    ("f_vanish", case_vanish),
    ("g_client_killed", case_client_killed),
    ("h_stalled_hello_busy", case_stalled_hello),
    ("h2_stalled_hello_timeout", case_stalled_timeout),
    ("i_busy_during_test", case_busy_during_test),
]

SERVER = []


def shared_server(fn):
    """Every case runs against the one server started for the file."""
    def t(binary):
        if not SERVER:
            SERVER.append(Server(binary).start())
        check(SERVER[0].alive(), "the shared server is gone:\n" +
              SERVER[0].stderr())
        fn(SERVER[0])
    return t


def test_clean_exit(binary):
    """After all that, SIGTERM stops the server with status 0."""
    check(SERVER and SERVER[0].alive(), "the shared server is gone")
    rc = SERVER[0].stop()
    check(rc == 0, "the server exited %r on SIGTERM:\n%s" %
          (rc, SERVER[0].stderr()))


TESTS = [(name, shared_server(fn)) for name, fn in CASES] + [
    ("sigterm_exit_0", test_clean_exit),
    ("out_of_descriptors", test_out_of_descriptors)]

if __name__ == "__main__":
    try:
        main(TESTS)
    finally:
        for srv in SERVER:
            srv.stop()
