#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Several transports in one run (-x tcp,tcp: the only list a build without
RDMA can make) run their tests back to back on one server. The second test
connects right after the first said BYE; the server must take it, not turn
it away as busy. Repeated, since the failure is a race.

    python3 tests/e2e/back_to_back.py /path/to/rdmaperf
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import Server, check, client, main, run  # noqa: E402

ROUNDS = 20
SMALL = ["-x", "tcp,tcp", "-S", "4096", "-q", "8", "-C", "200", "--warmup",
         "10", "--lat-iterations", "10", "--json"]


def check_two(r, what):
    check(r.rc in (0, 1), lambda: "%s:\n%s" % (what, r.describe()))
    doc = r.json()
    check(doc["config"].get("transport") == ["tcp", "tcp"],
          "%s: config.transport %r, want ['tcp', 'tcp']" %
          (what, doc["config"].get("transport")))
    res = doc.get("results")
    check(isinstance(res, list) and len(res) == 2, "%s: want two results" %
          what)
    bad = [x["error"] for x in res if not x.get("ok")]
    return bad, doc


def rounds(runner, what):
    failures = []
    for i in range(ROUNDS):
        r = runner()
        bad, doc = check_two(r, what)
        if bad or r.rc != 0 or doc["error"] is not None:
            failures.append("round %d: exit %d, %r" % (i + 1, r.rc, bad))
        else:
            check(all(x["messages"] == 200 for x in doc["results"]),
                  "%s: messages %r" % (what, [x["messages"] for x in
                                              doc["results"]]))
    check(not failures, lambda: "%s: %d of %d runs failed:\n%s" %
          (what, len(failures), ROUNDS, "\n".join(failures)))


def test_loopback(binary):
    rounds(lambda: run(binary, ["--loopback"] + SMALL), "--loopback -x tcp,tcp")


def test_server(binary):
    with Server(binary) as srv:
        rounds(lambda: client(binary, srv.port, SMALL), "-c -x tcp,tcp")


TESTS = [
    ("loopback_tcp_tcp", test_loopback),
    ("server_tcp_tcp", test_server),
]

if __name__ == "__main__":
    main(TESTS)
