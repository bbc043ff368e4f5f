#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
--report of hostile documents (issue 39, faults 6 and 7, the empty
document, and the document half of 9): the reader and the renderers are
linear in the document, memory stays bounded, and a document beyond what
can be read gets exit 2 and one line, never silence.

  4096 ranks, one cell   text, --json, --csv in seconds and little memory
                         (was 92-99 s and 3 GB); --plot refused with a line
                         (it wrote 3.4 GB of SVG)
  240 ranks, all failed  renders in seconds (was 41 s: every grid cell
                         scanned the failure list)
  per_stream bomb        refused at once (1.7 GB for --json)
  cells x results        refused with the bound (20000 cells, one of
                         1000 results: over 2 GB)
  hosts x results        the hosts read once (216 KB took 4 GB)
  out of memory          "out of memory", exit 2 (was: "not JSON", or
                         nothing and exit 0)
  results: []            one line, exit 2 (printed nothing, exit 0)
  hostile strings        no ESC reaches text or CSV, --json is UTF-8

The documents are made here. Run alone as:
  python3 tests/e2e/report_bounds.py path/to/rdmaperf
"""
import copy
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import check, log, main  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "fixtures", "loopback_sweep.json")
FAST_S = 20.0  # what was 41-99 s takes well under a second now
# Under ASan the address space is the shadow's: no limit can be set there.
SANITIZED = bool(os.environ.get("ASAN_OPTIONS"))
MEM_LIMIT = 1 << 30  # bytes of address space for a bounded run


def fixture():
    with open(FIXTURE) as f:
        return json.load(f)


def matrix_doc(ranks, cells):
    """A --matrix document of @ranks ranks and the (client, server, ok)
    @cells, each ok cell holding the fixture's first result."""
    base = fixture()
    one = copy.deepcopy(base)
    one["results"] = one["results"][:1]
    doc_cells = []
    for c, s, ok in cells:
        doc_cells.append({
            "client": c, "server": s, "round": 1, "ok": ok,
            "error": None if ok else "cannot reach the server",
            "seconds": 0.1, "document": one if ok else None})
    return {
        "schema": "rdmaperf-matrix/1", "version": base["version"],
        "config": base["config"],
        "matrix": {"pairs": "ordered", "serial": False, "rounds": 1,
                   "outlier_fraction": 0.8, "round_timeout_s": 600,
                   "ranks": [{"rank": i, "host": "node-%d" % i,
                              "address": "192.0.2.%d" % (i % 250 + 1),
                              "port": 20000 + i % 40000, "error": None}
                             for i in range(ranks)],
                   "cells": doc_cells, "tables": []},
        "error": None}


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))


class Out:
    def __init__(self, rc, out, err, seconds):
        self.rc, self.out, self.err, self.seconds = rc, out, err, seconds

    def describe(self):
        return "exit %s after %.1f s; stderr: %s" % (
            self.rc, self.seconds, self.err[-600:].decode(errors="replace"))


def report(binary, doc_path, args=(), bounded=True, timeout=120):
    """rdmaperf --report @doc_path @args, under MEM_LIMIT when @bounded
    (and not sanitized); stdout as bytes."""
    t0 = time.monotonic()
    p = subprocess.run([binary, "--report", doc_path] + list(args),
                       capture_output=True, timeout=timeout,
                       preexec_fn=limit_memory
                       if bounded and not SANITIZED else None)
    return Out(p.returncode, p.stdout, p.stderr, time.monotonic() - t0)


def written(doc, d, name):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    return path


def test_matrix_4096_ranks(binary):
    """[6] 4096 ranks, one cell (about 300 KB): every format in seconds
    under 1 GiB; the heatmaps refused with one line."""
    with tempfile.TemporaryDirectory() as d:
        path = written(matrix_doc(4096, [(0, 1, True)]), d, "m.json")
        for args in ([], ["--json"], ["--csv"]):
            r = report(binary, path, args)
            log("  %-8s %5.2f s, %8d bytes out" %
                (" ".join(args) or "text", r.seconds, len(r.out)))
            check(r.rc == 0 and r.seconds < FAST_S, lambda: "4096 ranks, "
                  "%s: want exit 0 within %.0f s under 1 GiB: %s" %
                  (args, FAST_S, r.describe()))
            check(len(r.out) < 8 << 20, "%d bytes of output for one cell" %
                  len(r.out))
        doc = json.loads(report(binary, path, ["--json"]).out)
        tab = doc["matrix"]["tables"][0]
        check(tab["throughput_gbps"] is None and
              tab["median_gbps"] is not None, "tables: %r" %
              {k: v for k, v in tab.items() if "grid" in k or "gbps" in k})
        svg = os.path.join(d, "m.svg")
        r = report(binary, path, ["--plot", svg])
        lines = r.err.decode().strip().splitlines()
        check(r.rc == 1 and len(lines) == 1 and "256 ranks" in lines[0] and
              r.seconds < FAST_S, "--plot: " + r.describe())
        check(not os.path.exists(svg), "a refused plot left a file")


def test_matrix_all_failed(binary):
    """[6] 240 ranks, every one of the 57360 pairs failed (about 8 MB):
    text, --json and the heatmap in seconds."""
    cells = [(c, s, False) for c in range(240) for s in range(240) if c != s]
    with tempfile.TemporaryDirectory() as d:
        path = written(matrix_doc(240, cells), d, "f.json")
        svg = os.path.join(d, "f.svg")
        for args in ([], ["--json"], ["--plot", svg]):
            r = report(binary, path, args)
            log("  %-8s %5.2f s" % (args[0] if args else "text", r.seconds))
            check(r.rc == 0 and r.seconds < FAST_S, lambda: "all failed, "
                  "%s: %s" % (args, r.describe()))
        text = report(binary, path).out.decode()
        check(text.count("FAILED") >= 57360, "the failures are not all "
              "shown")


def test_matrix_cells_x_results(binary):
    """[6] each table lists every cell: 20000 cells, one of them with 1000
    results (740 KB) would be 2e7 entries (over 2 GB): refused at once,
    exit 2, one line naming the bound."""
    cells = [(c, s) for c in range(200) for s in range(200) if c != s]
    doc = matrix_doc(200, [])
    doc["matrix"]["cells"] = [{"client": c, "server": s, "round": 0}
                              for c, s in cells[:20000]]
    doc["matrix"]["cells"][0]["document"] = {"results": [{}] * 1000}
    with tempfile.TemporaryDirectory() as d:
        path = written(doc, d, "k.json")
        for args in ([], ["--json"], ["--csv"]):
            r = report(binary, path, args)
            lines = r.err.decode().strip().splitlines()
            check(r.rc == 2 and len(lines) == 1 and
                  "20000 cells x 1000 results" in lines[0] and
                  "pairs' results" in lines[0] and r.seconds < FAST_S,
                  lambda: "%s: %s" % (args, r.describe()))


def test_hosts_once(binary):
    """[7] 4000 results and a "hosts" of 100000 numbers (400 KB): the
    hosts are read once, not once per result (over 4 GB)."""
    doc = fixture()
    doc["results"] = doc["results"][:1] + [{}] * 3999
    doc["hosts"]["client"]["junk"] = [0] * 100000
    with tempfile.TemporaryDirectory() as d:
        path = written(doc, d, "h.json")
        for args in ([], ["--json"], ["--csv"]):
            r = report(binary, path, args)
            log("  %-8s %5.2f s" % (args[0] if args else "text", r.seconds))
            check(r.rc == 0 and r.seconds < FAST_S, lambda: "%s: %s" %
                  (args, r.describe()))
        back = json.loads(report(binary, path, ["--json"]).out)
        check(len(back["hosts"]["client"]["junk"]) == 100000 and
              len(back["results"]) == 4000, "the document read back")


def test_per_stream_bomb(binary):
    """[7] 1,000,000 empty per_stream records in a 3.2 MB document: refused
    at once, exit 2, one line (--json needed 1.77 GB)."""
    doc = fixture()
    r0 = doc["results"][0]
    r0["intervals"] = [{"index": 0, "start": 0, "per_stream": [{}] * 256}
                       ] * 4000
    with tempfile.TemporaryDirectory() as d:
        path = written(doc, d, "bomb.json")
        for args in ([], ["--json"]):
            r = report(binary, path, args)
            lines = r.err.decode().strip().splitlines()
            check(r.rc == 2 and len(lines) == 1 and "records" in lines[0] and
                  r.seconds < FAST_S, lambda: "bomb %s: %s" %
                  (args, r.describe()))


def test_out_of_memory(binary):
    """[7] a 25 MB document under 64 and 100 MiB of address space: exit 2
    and "out of memory" (it said "not JSON", or printed nothing and exit
    0); under 1 GiB it reads."""
    if SANITIZED:
        log("  (not under ASan: its shadow memory takes any limit)")
        return
    doc = fixture()
    r0 = doc["results"][0]
    ps = r0["per_stream"][0]
    r0["intervals"] = [{"index": i, "start": i / 10.0, "seconds": 0.1,
                        "bytes": 100, "messages": 1,
                        "throughput": ps["throughput"],
                        "latency": ps["latency"]} for i in range(70000)]
    with tempfile.TemporaryDirectory() as d:
        path = written(doc, d, "big.json")
        r = report(binary, path, ["--json"])
        check(r.rc == 0, "the document reads under 1 GiB: " + r.describe())
        for limit in (64 << 20, 100 << 20):
            p = subprocess.run(
                [binary, "--report", path, "--json"], capture_output=True,
                timeout=60, preexec_fn=lambda: resource.setrlimit(
                    resource.RLIMIT_AS, (limit, limit)))
            err = p.stderr.decode(errors="replace")
            log("  %d MiB: exit %d: %s" % (limit >> 20, p.returncode,
                                           err.strip()[:160]))
            check(p.returncode in (1, 2) and "memory" in err and
                  "not JSON" not in err, "under %d MiB: exit %d, %r" %
                  (limit >> 20, p.returncode, err))


def test_empty_results(binary):
    """results: [] printed nothing with exit 0: one line and exit 2; with
    the run's error, that error."""
    doc = fixture()
    doc["results"] = []
    with tempfile.TemporaryDirectory() as d:
        path = written(doc, d, "empty.json")
        r = report(binary, path)
        lines = r.err.decode().strip().splitlines()
        check(r.rc == 2 and len(lines) == 1 and "no result" in lines[0],
              "results: []: " + r.describe())
        doc["error"] = {"code": "connect", "message": "cannot reach it"}
        path = written(doc, d, "failed.json")
        r = report(binary, path, ["--json"])
        check(r.rc == 2 and "cannot reach it" in r.err.decode(),
              "a failed run's document: " + r.describe())
        check(json.loads(r.out)["error"]["code"] == "usage", "--json")


def test_hostile_strings(binary):
    """[9] a document's host name with an escape sequence and invalid
    UTF-8, a transport note of 1 MiB: no ESC in text or CSV, no line over
    4 KB, --json is valid UTF-8."""
    doc = fixture()
    doc["hosts"]["server"]["hostname"] = "evil\u001b]0;pwned\u0007\u001b[2J"
    doc["results"][0]["notes"] = "n" * (1 << 20)
    raw = json.dumps(doc).replace('"evil', '"\xff\xfeevil')
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "hostile.json")
        with open(path, "wb") as f:
            f.write(raw.encode("latin-1"))
        for args in ([], ["--csv"], ["--json"]):
            r = report(binary, path, args)
            check(r.rc == 0, "%s: %s" % (args, r.describe()))
            check(b"\x1b" not in r.out and b"\x07" not in r.out,
                  "%s: a raw control byte reached the output" % args)
            check(max(len(ln) for ln in r.out.splitlines()) < 4096,
                  "%s: a line of %d bytes" % (args, max(
                      len(ln) for ln in r.out.splitlines())))
            if args == ["--json"]:
                back = json.loads(r.out.decode("utf-8"))
                name = back["hosts"]["server"]["hostname"]
                check("\\x1b" in name and "\ufffd" in name,
                      "hostname %r" % name)


TESTS = [
    ("matrix_4096_ranks", test_matrix_4096_ranks),
    ("matrix_all_failed", test_matrix_all_failed),
    ("matrix_cells_x_results", test_matrix_cells_x_results),
    ("hosts_once", test_hosts_once),
    ("per_stream_bomb", test_per_stream_bomb),
    ("out_of_memory", test_out_of_memory),
    ("empty_results", test_empty_results),
    ("hostile_strings", test_hostile_strings),
]

if __name__ == "__main__":
    main(TESTS)
