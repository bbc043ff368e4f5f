#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
A server for several tests at once (--max-tests N): eight clients at once
on loopback, each result correct and its own (its size, its count, the
server's side of it, its log lines); the next client told "busy" at once;
--max-memory a budget across the tests, a test beyond it refused before
anything is allocated; a silent or a stopped client holds no other test
back; bad values of the option.

    python3 tests/e2e/many_tests.py path/to/rdmaperf
"""
import os
import re
import signal
import socket
import time

from e2elib import (LoudServer, Server, check, client, ctl_connect,
                    finish, log, main, run, start)

N = 8


def client_args(port, extra):
    return ["-c", "-a", "127.0.0.1", "-p", port, "-x", "tcp", "--json"] + \
        extra


def wait_lines(srv, word, n, within=30):
    """Until the server's log holds @n lines with @word (a test that
    reached that far): no guess at how long a loaded host takes."""
    deadline = time.monotonic() + within
    while len(srv.lines(word)) < n:
        check(time.monotonic() < deadline, "no %d %r lines in %d s:\n%s"
              % (n, word, within, srv.stderr()))
        time.sleep(0.02)


def result_of(r):
    check(r.rc == 0, lambda: "client failed:\n" + r.describe())
    return r.json()["results"][0]


def test_eight_at_once(binary):
    """Eight clients, each its own size and count: every figure is its
    own, on both sides, and the log tells the tests apart."""
    with LoudServer(binary, ["--max-tests", str(N)]) as srv:
        procs = []
        for i in range(N):
            size = 1000 + 8 * i  # a size per client: who got whose?
            procs.append((size, start(binary, client_args(
                srv.port, ["-o", "send", "-S", size, "-q", 4,
                           "-C", 20000 + 500 * i, "--no-latency"]))))
        # all eight hold a slot: the ninth is told busy at once
        wait_lines(srv, "data stream connected", N)
        ninth = None
        if len(srv.lines("test done")) == 0:
            t0 = time.monotonic()
            ninth = client(binary, srv.port, ["-x", "tcp", "-S", 64,
                                              "-C", 10, "--json"])
            took = time.monotonic() - t0
        runs = [(size, finish(p)) for size, p in procs]
        for i, (size, r) in enumerate(runs):
            res = result_of(r)
            want = 20000 + 500 * i
            check(res["ok"] and res["size"] == size and
                  res["messages"] == want and res["bytes"] == want * size,
                  "client %d: %s messages of %s B, %s bytes; want %d of %d"
                  % (i, res["messages"], res["size"], res["bytes"], want,
                     size))
            srv_side = res["cpu"]["server"]
            check(srv_side["bytes"] == res["bytes"] and
                  srv_side["messages"] == want,
                  "client %d: the server counted %s messages, %s bytes: "
                  "another test's?" % (i, srv_side["messages"],
                                       srv_side["bytes"]))
            # its own threads' time, not the process's eight tests'
            check(srv_side["threads"] and
                  srv_side["user_s"] + srv_side["sys_s"] <= res["seconds"]
                  * len(srv_side["threads"]) + 0.05,
                  "client %d: server CPU %.3f s over %.3f s: not its own"
                  % (i, srv_side["user_s"] + srv_side["sys_s"],
                     res["seconds"]))
        if ninth is not None:
            check(ninth.rc == 1 and '"busy"' in ninth.out and took < 2,
                  lambda: "a ninth client with %d running: want busy at "
                  "once, took %.1f s:\n%s" % (N, took, ninth.describe()))
        else:
            log("  (a test ended before the ninth client: not asked)")
        # one number per test, and every line of it carries it
        log_text = srv.stderr()
        tests = re.findall(r"^rdmaperf server: (#\d+) \S+: test: tcp send$",
                           log_text, re.M)
        check(len(set(tests)) == N, "want %d numbered tests in the log, "
              "got %s:\n%s" % (N, tests, log_text))
        for t in tests:
            mine = [ln for ln in log_text.splitlines()
                    if ln.startswith("rdmaperf server: %s " % t)]
            check(len(mine) == 3 and mine[-1].endswith(": test done"),
                  "test %s: want its 3 lines (test, streams, done), got "
                  "%s" % (t, mine))


def test_default_is_one(binary):
    """Without --max-tests, one test at a time, as before."""
    with LoudServer(binary) as srv:
        p = start(binary, client_args(srv.port, ["-t", 2, "--no-latency"]))
        wait_lines(srv, "data stream connected", 1)
        r = client(binary, srv.port, ["-x", "tcp", "-C", 10, "--json"])
        finish(p)
        check(r.rc == 1 and '"busy"' in r.out,
              lambda: "a second client on a default server:\n" +
              r.describe())


def test_memory_budget(binary):
    """--max-memory is shared: a test that fits alone but not beside the
    running ones is told busy, naming the budget, before it allocates."""
    with LoudServer(binary, ["--max-tests", "4",
                             "--max-memory", "3M"]) as srv:
        big = start(binary, client_args(
            srv.port, ["-S", "1M", "-q", 2, "-t", 3, "--no-latency"]))
        wait_lines(srv, "data stream connected", 1)  # its 2 MiB taken
        r = client(binary, srv.port, ["-x", "tcp", "-S", "1M", "-q", 2,
                                      "-C", 10, "--json"])
        check(r.rc == 1 and '"busy"' in r.out and
              "--max-memory 3 MiB" in r.out and "2 MiB" in r.out,
              lambda: "2 MiB more beside 2 MiB under 3 MiB:\n" +
              r.describe())
        small = client(binary, srv.port, ["-x", "tcp", "-S", "256K",
                                          "-q", 2, "-C", 50, "--json"])
        check(small.rc == 0, lambda: "512 KiB beside 2 MiB under 3 MiB:\n"
              + small.describe())
        result_of(finish(big))
        # the budget is given back: the refused one runs now
        again = client(binary, srv.port, ["-x", "tcp", "-S", "1M", "-q", 2,
                                          "-C", 10, "--json"])
        check(again.rc == 0, lambda: "after the big test ended:\n" +
              again.describe())
        # alone over the budget: a limit, not busy
        over = client(binary, srv.port, ["-x", "tcp", "-S", "1M", "-q", 4,
                                         "-C", 10, "--json"])
        check(over.rc == 1 and '"limit"' in over.out,
              lambda: "4 MiB alone under 3 MiB:\n" + over.describe())


def test_silent_and_stopped(binary):
    """A silent connection and a client stopped mid-test each hold a slot,
    and only theirs: the others run at their usual pace."""
    with Server(binary, ["--max-tests", "3"]) as srv:
        quiet = ctl_connect(srv.port)  # says nothing: holds slot 1
        stopped = start(binary, client_args(
            srv.port, ["-t", 4, "--no-latency"]))
        time.sleep(0.8)
        os.kill(stopped.pid, signal.SIGSTOP)  # holds slot 2, mid-phase
        try:
            res = result_of(client(binary, srv.port, [
                "-x", "tcp", "-S", 4096, "-C", 2000, "--json"]))
            check(res["ok"], "a client beside a silent and a stopped one")
            # ...which still held their slots: it did not wait them out
            quiet.setblocking(False)
            try:
                held = quiet.recv(1) != b""
            except BlockingIOError:
                held = True
            check(held, "the silent peer was let go before the other "
                  "client ran: it waited for the silent one's timeout")
            check(stopped.poll() is None, "the stopped client ended")
        finally:
            os.kill(stopped.pid, signal.SIGCONT)
            quiet.close()
        finish(stopped)
        check(srv.alive(), "the server died:\n" + srv.stderr())


def test_bad_values(binary):
    for v in ("0", "65", "-1", "two", ""):
        r = run(binary, ["-s", "--max-tests", v])
        check(r.rc == 2 and "--max-tests" in r.err and
              len(r.err.strip().splitlines()) <= 2,
              lambda: "--max-tests %r:\n%s" % (v, r.describe()))
    r = run(binary, ["-c", "-a", "127.0.0.1", "--max-tests", "2"])
    check(r.rc == 2 and "--max-tests" in r.err,
          lambda: "a client with --max-tests:\n" + r.describe())


if __name__ == "__main__":
    socket.setdefaulttimeout(30)
    main([
        ("eight_at_once", test_eight_at_once),
        ("default_is_one", test_default_is_one),
        ("memory_budget", test_memory_budget),
        ("silent_and_stopped", test_silent_and_stopped),
        ("bad_values", test_bad_values),
    ])
