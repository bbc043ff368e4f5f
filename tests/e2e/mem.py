#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
--mem over tcp on loopback: the message rings of both ends are huge pages
or a file's pages, and the payload really lives there (the client's file
holds the pattern it sent, each stream its own region of it); the result
and the text say which. Huge pages: refused up front where none is
reserved, run where some are, and a test that wants more than are free
fails with how many it wanted and how to reserve them. odp (the rdma
transport's), a kind that does not exist and a server given --mem: exit 2,
one line.

The huge-page cases set /proc/sys/vm/nr_hugepages (root) and put it back;
without root they are skipped (exit 77 says so; under CI=true a failure).

    python3 tests/e2e/mem.py /path/to/rdmaperf
"""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (QUICK, check, log, main_or_skip, run,  # noqa: E402
                    usage_error)

NR_HUGE = "/proc/sys/vm/nr_hugepages"
FLOW = ["--loopback", "-x", "tcp", "-S", "64K", "-q", "8", "-C", "500",
        "--verify"] + QUICK
RING = 64 * 1024 * 8  # -S x -q: one stream's ring
SKIPPED = []


def result(r, kind):
    check(r.rc == 0, lambda: r.describe())
    doc = json.loads(r.out)
    res = doc["results"][0]
    check(doc["config"].get("mem") == kind and res.get("mem") == kind and
          res["ok"] and res["cpu"]["server"]["verify_errors"] == 0,
          "config.mem %r, result.mem %r, ok %r" %
          (doc["config"].get("mem"), res.get("mem"), res["ok"]))
    return res


def test_file(binary):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rings")
        r = run(binary, FLOW + ["-P", "2", "--mem", "file:" + path,
                                "--json"])
        result(r, "file")
        with open(path, "rb") as f:
            data = f.read()
        # two streams, a region each, one after the other; the client
        # sends from them, so each holds the payload pattern (never zero)
        check(len(data) == 2 * RING, "the file has %d bytes, want 2 x %d" %
              (len(data), RING))
        for i in (0, 1):
            region = data[i * RING:(i + 1) * RING]
            check(region.count(0) < len(region) // 2,
                  "stream %d's region of the file is %d of %d zero bytes: "
                  "the ring was not the file" %
                  (i, region.count(0), len(region)))
        log("  file: 2 streams' rings, %d bytes each, in the file" % RING)
    r = run(binary, FLOW + ["--mem", "file"])
    check(r.rc == 0 and
          "  memory       a file's pages (MAP_SHARED) on both ends" in
          r.out.splitlines(), lambda: r.describe())


def huge_set(n):
    with open(NR_HUGE, "w") as f:
        f.write("%d\n" % n)
    with open(NR_HUGE) as f:
        return int(f.read())


def test_huge(binary):
    if os.geteuid() != 0 or not os.path.exists(NR_HUGE):
        why = "needs root and %s to reserve huge pages" % NR_HUGE
        check(os.environ.get("CI") != "true", "CI: " + why)
        SKIPPED.append("huge: " + why)
        log("  skipped: " + why)
        return
    with open(NR_HUGE) as f:
        saved = int(f.read())
    try:
        huge_set(0)
        usage_error(binary, FLOW + ["--mem", "huge"],
                    "--mem huge: no huge page of")
        # 16 MiB of 2 MiB pages; a fragmented host may find fewer, and
        # the test needs a page for each end's 512 KiB ring
        got = huge_set(8)
        check(got >= 2, "the kernel reserved %d huge pages of 8" % got)
        res = result(run(binary, FLOW + ["--mem", "huge", "--json"]),
                     "huge")
        log("  huge: %.2f Gb/s on huge pages, verified" %
            (res["throughput"]["bits_per_second"] / 1e9))
        r = run(binary, FLOW + ["--mem", "huge"])
        check("  memory       huge pages (MAP_HUGETLB) on both ends" in
              r.out.splitlines(), lambda: r.describe())
        # a 16 MiB ring on each end: 8 pages each, more than were reserved
        # for both
        r = run(binary, ["--loopback", "-x", "tcp", "-S", "1M", "-q", "16",
                         "-C", "50", "--mem", "huge"] + QUICK)
        check(r.rc == 1 and "huge pages of 2048 KiB wanted" in r.err and
              "nr_hugepages" in r.err, lambda: r.describe())
    finally:
        huge_set(saved)


def test_bad(binary):
    c = ["-c", "-a", "127.0.0.1", "-p", "1"]
    for v in ("heap", "", "huge:2M", "File"):
        usage_error(binary, c + ["--mem", v], "--mem: %s: one of" % v)
    usage_error(binary, c + ["-x", "tcp", "--mem", "odp"],
                "--mem odp: tcp cannot put its buffers there "
                "(on-demand paging is the rdma transport's)")
    usage_error(binary, ["--loopback", "-x", "file:/tmp/x", "--mem",
                         "huge"], "--mem huge: file cannot put its buffers there")
    usage_error(binary, ["-s", "--mem", "huge"], "--mem")


if __name__ == "__main__":
    main_or_skip([("bad", test_bad), ("file", test_file),
                  ("huge", test_huge)], SKIPPED)
