#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
--matrix --pattern under Open MPI on this host, -x tcp: incast:3 of 4
ranks (4 rounds of 3 flows into one server at once, every flow's figures
its own, each round's aggregate, fairness and slowest flow true to its
flows, text, CSV, the heatmap, --report the same document); all-to-all
and bisection; a pattern file; incast:2 in a network namespace whose
loopback tbf shapes to 200 Mbit/s: every round's aggregate is the shaped
rate; bad patterns exit 2 with one line.

    python3 tests/e2e/patterns.py /path/to/rdmaperf
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import check, log, main, run  # noqa: E402
from matrix import (TEST, matrix_doc, mpi_env, mpirun,  # noqa: E402
                    skip_unless_mpi)
from slo import SHAPE_MBIT, ShapedNetns  # noqa: E402

FLOW = ["-x", "tcp", "-S", "4096", "-C", "3000", "--wait", "event",
        "--quiet", "--no-latency"]


def flows(doc):
    return doc["matrix"]["cells"]


def gbps(cell):
    return cell["document"]["results"][0]["throughput"]["bits_per_second"] \
        / 1e9


def check_rounds(doc, want):
    """The flows are @want ({round: [(client, server), ...]}), each ok;
    each round's summary true to its flows."""
    got = {}
    for c in flows(doc):
        got.setdefault(c["round"], []).append((c["client"], c["server"]))
        check(c["ok"], "flow %d -> %d failed: %r" % (c["client"],
                                                     c["server"],
                                                     c["error"]))
        r = c["document"]["results"][0]
        check(r["bytes"] == r["messages"] * r["size"] and r["messages"]
              == 3000, "flow %r: %r messages" % (c, r["messages"]))
    check({k: sorted(v) for k, v in got.items()} ==
          {k: sorted(v) for k, v in want.items()},
          "flows by round %r, want %r" % (got, want))
    tab = doc["matrix"]["tables"][0]
    check(len(tab["rounds"]) == len(want), "%d round summaries" %
          len(tab["rounds"]))
    for s in tab["rounds"]:
        mine = sorted(gbps(c) for c in flows(doc) if c["round"] ==
                      s["round"])
        total = sum(mine)
        jain = total * total / (len(mine) * sum(x * x for x in mine))
        check(s["flows"] == len(mine) and s["failed"] == 0 and
              s["window"] == "whole_phase" and
              abs(s["aggregate_gbps"] - total) < 1e-9 * total and
              abs(s["fairness"] - jain) < 1e-9 and
              abs(s["slowest"]["gbps"] - mine[0]) < 1e-9 * mine[0],
              "round %r: flows %r" % (s, mine))


def test_incast(binary):
    tmp = tempfile.mkdtemp()
    try:
        svg = os.path.join(tmp, "p.svg")
        r = mpirun(binary, (4, FLOW + ["--pattern", "incast:3", "--json",
                                       "--plot", svg]))
        check(r.rc == 0, lambda: "incast:3 of 4 ranks:\n" + r.describe())
        doc = matrix_doc(r)
        m = doc["matrix"]
        check(m["pairs"] == "pattern" and m["pattern"] == "incast:3" and
              m["rounds"] == 4, "matrix %r" % {k: m[k] for k in
                                               ("pairs", "rounds")})
        check_rounds(doc, {s: [((s + k) % 4, s) for k in (1, 2, 3)]
                           for s in range(4)})
        path = os.path.join(tmp, "p.json")
        with open(path, "w") as f:
            f.write(r.out)
        again = run(binary, ["--report", path, "--json"])
        check(again.rc == 0 and again.out == r.out,
              lambda: "--report of a pattern:\n" + again.describe())
        text = run(binary, ["--report", path])
        check(text.rc == 0 and "pattern incast:3" in text.out and
              text.out.count("aggregate") == 4 and
              text.out.count(" Gb/s  ") >= 12,
              lambda: "the text:\n" + text.out)
        rows = list(csv.DictReader(io.StringIO(
            run(binary, ["--report", path, "--csv"]).out)))
        check(len(rows) == 12 and {x["round"] for x in rows} ==
              {"0", "1", "2", "3"}, "CSV: %d rows" % len(rows))
        p = subprocess.run(["rsvg-convert", svg, "-o",
                            os.path.join(tmp, "p.png")],
                           capture_output=True, text=True)
        check(p.returncode == 0, "the plot does not render: " + p.stderr)
    finally:
        shutil.rmtree(tmp)


def test_all_to_all_bisection(binary):
    r = mpirun(binary, (3, FLOW + ["--pattern", "all-to-all", "--json"]))
    check(r.rc == 0, lambda: "all-to-all:\n" + r.describe())
    check_rounds(matrix_doc(r), {0: [(i, j) for i in range(3)
                                     for j in range(3) if i != j]})
    r = mpirun(binary, (4, FLOW + ["--pattern", "bisection", "--json"]))
    check(r.rc == 0, lambda: "bisection:\n" + r.describe())
    check_rounds(matrix_doc(r), {0: [(0, 2), (1, 3)], 1: [(2, 0), (3, 1)]})


def test_file(binary):
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("# two rounds\n0->1, 2->1\n\n1->0 1->2  # one-to-many\n")
        f.flush()
        r = mpirun(binary, (3, FLOW + ["--pattern", "file:" + f.name,
                                       "--json"]))
        check(r.rc == 0, lambda: "a pattern file:\n" + r.describe())
        check_rounds(matrix_doc(r), {0: [(0, 1), (2, 1)],
                                     1: [(1, 0), (1, 2)]})
        f.write("2->3\n")
        f.flush()
        r = mpirun(binary, (3, FLOW + ["--pattern", "file:" + f.name]))
        check(r.rc == 2 and "line 5: 2->3: a rank beyond this job" in r.err
              and r.err.count("rdmaperf") == 1,
              lambda: "a rank beyond the job:\n" + r.describe())


def test_shaped_incast(binary):
    """All ranks in a namespace whose loopback is shaped: an incast's
    flows share it, so each round's aggregate is the shaped rate, and
    the flows share it fairly."""
    if os.environ.get("ASAN_OPTIONS"):
        # 30 s of tbf's pace: the sanitizers find nothing there that the
        # unshaped incast above does not run through (scripts/test.sh)
        log("  not under the sanitizers: the same code ran in incast")
        return
    with ShapedNetns() as ns:
        if ns.why:
            check(os.environ.get("CI") != "true", "CI: " + ns.why)
            log("  skipped: " + ns.why)
            return
        cmd = ["ip", "netns", "exec", ns.name, "mpirun", "-np", "3",
               binary, "--matrix", "--pattern", "incast:2", "-x", "tcp",
               "-S", "64K", "-t", "4", "-i", "0.25", "--wait", "event",
               "--quiet", "--no-latency", "--json"]
        p = subprocess.run(cmd, capture_output=True, text=True,
                           env=mpi_env(), timeout=240)
        check(p.returncode == 0, "shaped incast: %s" % p.stderr[-2000:])
        doc = json.loads(p.stdout)
        for s in doc["matrix"]["tables"][0]["rounds"]:
            mbit = s["aggregate_gbps"] * 1000
            check(abs(mbit - SHAPE_MBIT) <= 0.15 * SHAPE_MBIT and
                  s["window"] == "middle_half" and s["flows"] == 2 and
                  s["fairness"] > 0.8,
                  "round %r: aggregate %.0f Mbit/s, shaped to %d" %
                  (s, mbit, SHAPE_MBIT))
            log("  round %d: %.0f Mbit/s of %d (whole phases %.0f), "
                "fairness %.3f" % (s["round"] + 1, mbit, SHAPE_MBIT,
                                   s["aggregate_whole_gbps"] * 1000,
                                   s["fairness"]))


def test_bad(binary):
    for args, words in ((["--pattern", "incast:0"], "incast:N"),
                        (["--pattern", "ring"], "one of incast:N"),
                        (["--pattern", "file:"], "one of incast:N"),
                        (["-c", "-a", "127.0.0.1", "--pattern",
                          "all-to-all"], "only with --matrix")):
        r = run(binary, (["--matrix"] if args[0] != "-c" else []) + args)
        check(r.rc == 2 and words in r.err and r.err.count("\n") <= 2,
              lambda: "want exit 2 and %r:\n%s" % (words, r.describe()))
    r = mpirun(binary, (3, TEST + ["--pattern", "incast:5"]))
    check(r.rc == 2 and "needs 6 ranks; this job has 3" in r.err and
          r.err.count("rdmaperf") == 1,
          lambda: "incast:5 of 3 ranks:\n" + r.describe())
    r = mpirun(binary, (2, TEST + ["--pattern", "file:/nonexistent/p"]))
    check(r.rc == 2 and "/nonexistent/p: No such file" in r.err,
          lambda: "a missing pattern file:\n" + r.describe())


if __name__ == "__main__":
    skip_unless_mpi(os.path.abspath(sys.argv[1]) if len(sys.argv) > 1
                    else "")
    main([("incast", test_incast),
          ("all_to_all_bisection", test_all_to_all_bisection),
          ("file", test_file),
          ("shaped_incast", test_shaped_incast),
          ("bad", test_bad)])
