#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
rdmaperf -s --once: serves one test, then exits 0; a client turned away as
busy meanwhile does not count as that test.

    python3 tests/e2e/once.py /path/to/rdmaperf
"""
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (QUICK, Server, check, client, client_json,  # noqa: E402
                    finish, main, start)

NORMAL = ["-x", "tcp", "-o", "write", "-S", "4096", "-q", "8", "-C", "2000"] \
    + QUICK
EXIT_WITHIN = 10.0  # the server polls its stop conditions every 200 ms


def wait_exit(srv, within=EXIT_WITHIN):
    try:
        return srv.proc.wait(timeout=within)
    except Exception:
        return None


def test_exits_after_one_test(binary):
    with Server(binary, ["--once"]) as srv:
        time.sleep(0.5)
        check(srv.alive(), "--once exited before any client:\n" +
              srv.stderr())
        doc = client_json(binary, srv.port, NORMAL)
        r = doc["results"][0]
        check(doc["error"] is None and r["ok"] and r["messages"] == 2000,
              "the one test: error %r" % doc["error"])
        t0 = time.monotonic()
        rc = wait_exit(srv)
        check(rc is not None, "--once still running %.0f s after its test" %
              EXIT_WITHIN)
        check(rc == 0, "--once exited %r after a good test:\n%s" %
              (rc, srv.stderr()))
        took = time.monotonic() - t0
        check(took < EXIT_WITHIN, "exit took %.1f s" % took)
        r = client(binary, srv.port, NORMAL, timeout=30)
        check(r.rc == 1, lambda: "a client after --once exited: want exit "
              "1\n" + r.describe())


def test_busy_client_does_not_count(binary):
    with Server(binary, ["--once"]) as srv:
        first = start(binary, ["-c", "-a", "127.0.0.1", "-p", srv.port, "-x",
                               "tcp", "-S", "4096", "-q", "8", "-t", "2",
                               "--json"] + QUICK)
        try:
            time.sleep(1.0)
            alive = first.poll() is None
            second = client(binary, srv.port, NORMAL, timeout=30)
        finally:
            res = finish(first)
        check(alive, lambda: "the -t 2 client ended early:\n" +
              res.describe())
        check(res.rc == 0, lambda: "the one test failed:\n" + res.describe())
        check(second.rc == 1 and "busy" in second.err,
              lambda: "a client during the test: want 'busy'\n" +
              second.describe())
        rc = wait_exit(srv)
        check(rc == 0, "--once: exit %r after its test (want 0):\n%s" %
              (rc, srv.stderr()))


TESTS = [
    ("exits_after_one_test", test_exits_after_one_test),
    ("busy_client_does_not_count", test_busy_client_does_not_count),
]

if __name__ == "__main__":
    main(TESTS)
