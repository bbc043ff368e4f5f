#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Offered load over TCP on loopback: --rate achieves a rate well under the
peak (within 2%), reports saturation over it, --load-curve gives a closed
point then rising rates, --signal and --post-list keep --verify clean for
write and send, bad values exit 2, and --report re-renders a rate result
byte for byte.

    python3 tests/e2e/load.py /path/to/rdmaperf
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (QUICK, Server, check, check_doc, client,  # noqa: E402
                    client_json, main, run)

BASE = ["-x", "tcp", "-o", "write", "-S", "4096", "--no-latency"] + QUICK


def rate_of(r):
    check(r["ok"], "point failed: %r" % r["error"])
    check("rate" in r, "an open-loop point without 'rate': %r" % sorted(r))
    return r["rate"]


def test_rate_achieved(binary):
    # 2000 ops/s: a fraction of what loopback does even on a busy machine
    with Server(binary) as srv:
        doc = client_json(binary, srv.port,
                          BASE + ["-q", "16", "--rate", "2k", "-t", "2"])
    check_doc(doc, "--rate 2k")
    r = doc["results"][0]
    rt = rate_of(r)
    check(rt["offered_ops_per_second"] == 2000, "offered %r" % rt)
    check(abs(rt["achieved_ops_per_second"] - 2000) <= 40,
          "achieved %.1f ops/s of 2000 offered" %
          rt["achieved_ops_per_second"])
    check(not rt["saturated"], "saturated at 2000 ops/s: %r" % rt)
    check(r["rate"]["correction"] == "intended_start", "correction %r" % rt)
    lc = rt["latency_corrected"]
    check(lc["count"] == r["messages"] and lc["p50"] >= r["latency"]["min"],
          "corrected latency %r against %r" % (lc, r["latency"]))
    # a busy machine may hold the client back near the end: 1% at most
    check(rt["unsent"] <= 40, "unsent %r at a low rate" % rt["unsent"])


def test_rate_saturated(binary):
    # 1M ops/s of 64 KiB at depth 1: 500 Gb/s, far over loopback
    with Server(binary) as srv:
        args = ["-x", "tcp", "-S", "64K", "-q", "1", "--rate", "1M", "-t",
                "1", "--no-latency"] + QUICK
        doc = client_json(binary, srv.port, args)
        text = client(binary, srv.port, args)
    rt = rate_of(doc["results"][0])
    check(rt["saturated"] and rt["achieved_ops_per_second"] < 0.97e6,
          "not saturated: %r" % rt)
    check(rt["unsent"] > 0 and rt["max_backlog"] > 0,
          "a saturated open loop left nothing unsent: %r" % rt)
    check(text.rc == 0 and "SATURATED" in text.out,
          "the text does not say SATURATED:\n" + text.describe())


def test_load_curve(binary):
    with Server(binary) as srv:
        doc = client_json(binary, srv.port,
                          BASE + ["-q", "16", "--load-curve", "4", "-C",
                                  "2000"])
        text = client(binary, srv.port,
                      BASE + ["-q", "16", "--load-curve", "4", "-C", "2000"])
    check_doc(doc, "--load-curve 4")
    res = doc["results"]
    check(len(res) == 5, "%d results, want the peak and 4 rates" % len(res))
    check("rate" not in res[0] and res[0]["ok"], "the peak point: %r" %
          {k: res[0][k] for k in ("ok", "error")})
    offered = [rate_of(r)["offered_ops_per_second"] for r in res[1:]]
    check(offered == sorted(offered) and len(set(offered)) == 4,
          "offered rates not rising: %r" % offered)
    peak = res[0]["throughput"]["messages_per_second"]
    check(abs(offered[-1] - peak) <= 1 + peak * 1e-9,
          "last rate %r is not the peak %r" % (offered[-1], peak))
    check(doc["config"].get("load_curve") == 4, "config: %r" % doc["config"])
    check(text.rc == 0 and "load curve, 5 points" in text.out and
          "closed" in text.out, "text:\n" + text.describe())


def test_load_plot(binary):
    with tempfile.TemporaryDirectory() as d:
        svg = os.path.join(d, "curve.svg")
        with Server(binary) as srv:
            r = client(binary, srv.port,
                       BASE + ["-q", "16", "--load-curve", "3", "-C", "1000",
                               "--plot", svg])
        check(r.rc == 0 and os.path.exists(svg), r.describe())
        text = open(svg).read()
        check("latency from intended start" in text and
              text.count('class="series"') == 1,
              "the load-curve plot lacks its axis or its one series")
        if shutil.which("rsvg-convert"):
            png = os.path.join(d, "curve.png")
            rc = subprocess.call(["rsvg-convert", svg, "-o", png])
            check(rc == 0 and os.path.getsize(png) > 1000,
                  "rsvg-convert could not render the load curve")


def test_signal_post_list(binary):
    with Server(binary) as srv:
        for op in ("write", "send"):
            doc = client_json(binary, srv.port,
                              ["-x", "tcp", "-o", op, "-S", "13", "-q", "64",
                               "-C", "5000", "--signal", "32",
                               "--post-list", "8", "--verify"] + QUICK)
            r = doc["results"][0]
            check(r["ok"] and r["messages"] == 5000,
                  "%s --signal 32: %r" % (op, r["error"]))
            check(r["signal"] == 32 and r["post_list"] == 8,
                  "%s: signal/post_list not in the result" % op)
            srv_msgs = r["cpu"]["server"]
            check(srv_msgs is not None, "%s: no server side" % op)


def test_bad_values(binary):
    cases = [
        ["--rate", "abc"], ["--rate", "0"], ["--rate", "-5k"],
        ["--rate", "10x"], ["--load-curve", "0"], ["--load-curve", "32"],
        ["--rate", "1k", "--load-curve", "3"],
        ["-q", "16", "--signal", "64"], ["-q", "4", "--post-list", "8"],
        ["--rate", "1k", "--no-bandwidth"],
        # below 1 op/s: it ran at 1 op/s, saying nothing
        ["--rate", "0.0001"], ["-S", "4K", "--rate", "8b"],
    ]
    for extra in cases:
        r = run(binary, ["-c", "-a", "127.0.0.1", "-x", "tcp"] + extra)
        first = (r.err.strip().splitlines() or [""])[0]
        check(r.rc == 2 and first.startswith("rdmaperf: ") and
              "Try 'rdmaperf --help'" in r.err,
              "%s: want exit 2 and a one-line reason:\n%s" %
              (extra, r.describe()))


def test_report_round_trip(binary):
    # --bidir -P 2: figures derived from written ones (fairness over both
    # directions' streams) must come back the same too
    for extra in ([], ["--bidir", "-P", "2"]):
        report_round_trip(binary, extra)


def report_round_trip(binary, extra):
    with Server(binary) as srv:
        first = client(binary, srv.port,
                       BASE + ["-q", "8", "--rate", "1k,3k", "-t", "0.5",
                               "--json"] + extra)
    check(first.rc == 0, first.describe())
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(first.out)
        path = f.name
    try:
        again = run(binary, ["--report", path, "--json"])
        check(again.rc == 0 and again.out == first.out,
              "--report --json differs from the run's JSON:\n" +
              again.describe())
        text = run(binary, ["--report", path])
        check(text.rc == 0 and "2 points" in text.out and
              "corrected" in text.out, text.describe())
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main([
        ("rate achieved", test_rate_achieved),
        ("rate saturated", test_rate_saturated),
        ("load curve", test_load_curve),
        ("load curve plot", test_load_plot),
        ("signal and post list", test_signal_post_list),
        ("bad values", test_bad_values),
        ("report round trip", test_report_round_trip),
    ])
