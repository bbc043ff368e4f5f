#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
--repeat and --confidence over TCP on loopback: every figure's statistics
over the repetitions checked against the values the document lists, the
median repetition kept as the point's result, rounds interleaved with the
transports' order alternating, the paired ratio against the first
transport recomputed from the values, --confidence's early stop, --report,
the text lines, and bad input (exit 2).

    python3 tests/e2e/repeat.py /path/to/rdmaperf
"""
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (QUICK, Server, check, check_doc, log, main,  # noqa
                    run)

# Student's t, 97.5% quantiles by degrees of freedom (the tables')
T975 = {1: 12.7062, 2: 4.302653, 3: 3.182446, 4: 2.776445, 5: 2.570582,
        6: 2.446912, 7: 2.364624}
LOOP = ["--loopback", "-o", "write", "-S", "16384", "-q", "8", "-t", "0.25"]


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def check_figure(name, fig, n):
    vals = [v for v in fig["values"] if v is not None]
    check(len(fig["values"]) == n and fig["n"] == len(vals),
          "%s: %d values for %d repetitions: %r" % (name, len(vals), n, fig))
    mean, med = statistics.mean(vals), statistics.median(vals)
    check(close(fig["mean"], mean) and close(fig["median"], med) and
          close(fig["min"], min(vals)) and close(fig["max"], max(vals)),
          "%s: mean/median/min/max %r from %r" % (name, fig, vals))
    if len(vals) < 2:
        check(fig["interval"] is None, "%s: one value, an interval" % name)
        return
    sd = statistics.stdev(vals)
    half = T975[len(vals) - 1] * sd / math.sqrt(len(vals))
    lo, hi = fig["interval"]
    # to the mean's scale: mean - half cancels (seen: 3.06 of 1998 - 1995,
    # where the table's 7 digits of t move it by 7e-5 of itself)
    check(abs(hi - (mean + half)) <= 1e-5 * mean and
          abs(lo - max(0.0, mean - half)) <= 1e-5 * mean,
          "%s: interval %r, want mean %g +- %g" % (name, fig["interval"],
                                                    mean, half))
    check(close(fig["cov_pct"], 100 * sd / mean, 1e-6),
          "%s: cov %r, want %g" % (name, fig["cov_pct"], 100 * sd / mean))
    check(close(fig["half_width_pct"], 100 * half / mean, 1e-5),
          "%s: half-width %r" % (name, fig["half_width_pct"]))


def test_statistics_and_median(binary):
    r = run(binary, LOOP + ["-x", "tcp", "--repeat", "4", "--json"] + QUICK)
    check(r.rc == 0, lambda: "--repeat 4\n" + r.describe())
    doc = json.loads(r.out)
    check_doc(doc, "repeat")
    res = doc["results"][0]
    rep = res["repeat"]
    check(rep["n"] == 4 and rep["level"] == 95 and rep["interval"] == "t"
          and rep["stopped"] == "count" and "target_pct" not in rep,
          "repeat %r" % rep)
    for k in ("throughput", "messages_per_second", "p50", "p99",
              "unloaded_p50", "client_cpu"):
        check(k in rep["figures"], "no %s in %r" % (k, list(rep["figures"])))
        check_figure(k, rep["figures"][k], 4)
    tp = rep["figures"]["throughput"]["values"]
    kept = res["throughput"]["bits_per_second"] / 1e9
    want = sorted(tp)[(len(tp) - 1) // 2]
    check(close(kept, want, 1e-9),
          "the result is not the median repetition: %g Gb/s, values %r"
          % (kept, tp))


def test_interleaved_and_paired(binary):
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "data")
        r = run(binary, LOOP + ["-x", "tcp,file:" + f, "--repeat", "4",
                                "--json-stream"] + QUICK, timeout=240)
    check(r.rc == 0, lambda: "-x tcp,file --repeat 4\n" + r.describe())
    lines = [json.loads(x) for x in r.out.splitlines() if x.strip()]
    order = [(x["repetition"], x["result"]["transport"]) for x in lines
             if x["type"] == "result"]
    want = [(0, "tcp"), (0, "file"), (1, "file"), (1, "tcp"),
            (2, "tcp"), (2, "file"), (3, "file"), (3, "tcp")]
    check(order == want, "rounds and order %r, want %r" % (order, want))
    doc = lines[-1]
    check(doc["type"] == "summary", "the last line %r" % doc["type"])
    base, other = doc["results"][0]["repeat"], doc["results"][1]["repeat"]
    check("against" not in base, "the first transport against itself")
    ag = other["against"]
    check(ag["transport"] == "tcp", "against %r" % ag)
    for k, x in ag["figures"].items():
        a = base["figures"][k]["values"]
        b = other["figures"][k]["values"]
        logs = [math.log(q / p) for p, q in zip(a, b)
                if p and q and p > 0 and q > 0]
        check(x["n"] == len(logs) and
              close(x["ratio"], math.exp(statistics.mean(logs)), 1e-6),
              "%s: paired ratio %r, want the geometric mean of %r / %r"
              % (k, x, b, a))
        if len(logs) >= 2:
            half = T975[len(logs) - 1] * statistics.stdev(logs) / \
                math.sqrt(len(logs))
            lo, hi = x["interval"]
            m = statistics.mean(logs)
            check(close(lo, math.exp(m - half), 1e-5) and
                  close(hi, math.exp(m + half), 1e-5),
                  "%s: interval %r" % (k, x["interval"]))
            check(x["significant"] == (lo > 1 or hi < 1),
                  "%s: significant %r with %r" % (k, x["significant"],
                                                  x["interval"]))


def test_confidence_stops(binary):
    r = run(binary, LOOP + ["-x", "tcp", "--repeat", "8", "--confidence",
                            "90,60", "--json"] + QUICK, timeout=240)
    check(r.rc == 0, lambda: "--confidence 90,60\n" + r.describe())
    rep = json.loads(r.out)["results"][0]["repeat"]
    check(rep["level"] == 90 and rep["target_pct"] == 60,
          "level and target %r" % rep)
    if rep["stopped"] == "confidence":
        check(3 <= rep["n"] <= 8 and all(
            f["half_width_pct"] is not None and f["half_width_pct"] <= 60
            for k, f in rep["figures"].items()
            if k in ("throughput", "messages_per_second", "p50",
                     "unloaded_p50")),
            "stopped for confidence: %r" % rep)
    else:
        check(rep["stopped"] == "count" and rep["n"] == 8,
              "neither narrow nor 8 rounds: %r" % rep)


def test_text_and_report(binary):
    r = run(binary, LOOP + ["-x", "tcp", "--repeat", "3", "--json"] + QUICK)
    check(r.rc == 0, lambda: r.describe())
    t = run(binary, LOOP + ["-x", "tcp", "--repeat", "2"] + QUICK)
    check(t.rc == 0 and "  repeated     2 times" in t.out and
          "(95%, n=2)" in t.out,
          lambda: "text: the repeated lines\n" + t.describe())
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.json")
        with open(path, "w") as f:
            f.write(r.out)
        back = run(binary, ["--report", path, "--json"])
        check(back.rc == 0 and json.loads(back.out)["results"][0]["repeat"]
              == json.loads(r.out)["results"][0]["repeat"],
              lambda: "--report keeps repeat\n" + back.describe())
        txt = run(binary, ["--report", path])
        check(txt.rc == 0 and "  repeated     3 times" in txt.out and
              "throughput" in txt.out,
              lambda: "--report text\n" + txt.describe())


SPIN = ("import os, sys\n"
        "os.sched_setaffinity(0, {int(sys.argv[1])})\n"
        "while True:\n"
        "    pass\n")
NOISE_ARGS = ["-x", "tcp", "-o", "write", "-S", "64K", "-q", "16", "-t",
              "0.3", "--no-latency", "--cpu", "0", "--repeat", "6"]


def noisy_run(binary, port, spinner):
    """A --repeat 6 run, client on CPU 0 and the server on CPU 1, with
    @spinner (a process spinning on CPU 1, or None): stopped during the
    even repetitions and running during the odd ones, switched as each
    result line comes (--json-stream). Returns the summary's repeat."""
    args = [binary, "-c", "-a", "127.0.0.1", "-p", str(port),
            "--json-stream"] + NOISE_ARGS + QUICK
    p = subprocess.Popen(args, stdout=subprocess.PIPE, text=True,
                         stderr=subprocess.PIPE)
    lines, on = [], False
    try:
        if spinner:
            spinner.send_signal(signal.SIGSTOP)
        for line in p.stdout:
            lines.append(json.loads(line))
            if spinner and lines[-1]["type"] == "result":
                on = not on
                spinner.send_signal(signal.SIGCONT if on else
                                    signal.SIGSTOP)
        p.wait(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
        if spinner:
            spinner.send_signal(signal.SIGCONT)
    check(p.returncode == 0 and lines and lines[-1]["type"] == "summary",
          "--repeat under noise: exit %s, %s" % (p.returncode,
                                                 p.stderr.read()[-2000:]))
    return lines[-1]["results"][0]["repeat"]


def test_injected_noise(binary):
    """A spinner on the server's pinned core, on in every other
    repetition: the tool says so (host_busy, from the pinned core's busy
    time, and the throughput's CoV); on a quiet host the repetitions it
    ran beside are slower and the interval is wider than without it."""
    if len(os.sched_getaffinity(0)) < 2:
        log("  skipped: one CPU, no core of the server's own to load")
        return
    with Server(binary, ["--cpu", "1"]) as srv:
        quiet = noisy_run(binary, srv.port, None)
        spinner = subprocess.Popen([sys.executable, "-c", SPIN, "1"])
        try:
            noisy = noisy_run(binary, srv.port, spinner)
        finally:
            spinner.kill()
            spinner.wait()
    q = quiet["figures"]["throughput"]
    n = noisy["figures"]["throughput"]
    busy = [w for w in quiet["warnings"] if w["kind"] == "host_busy"]
    vals = n["values"]
    spun = statistics.mean(vals[1::2]) / statistics.mean(vals[0::2])
    log("  throughput: quiet +-%.1f%% (CoV %.1f%%%s), every other "
        "repetition spun against +-%.1f%% (CoV %.1f%%), the spun ones at "
        "%.2f of the others" %
        (q["half_width_pct"], q["cov_pct"],
         "; busy elsewhere %.0f%%" % busy[0]["value"] if busy else "",
         n["half_width_pct"], n["cov_pct"], spun))
    # what the tool says, whatever else the host does: the spun
    # repetitions' pinned core was about half the spinner's
    kinds = [(w["kind"], w.get("figure")) for w in noisy["warnings"]]
    check(("host_busy", None) in kinds and ("cov", "throughput") in kinds,
          "no host_busy or throughput CoV warning under the spinner: %r" %
          noisy["warnings"])
    if busy:  # no quiet run to compare with: the tool said so, above
        log("  the quiet run was not (the host busy elsewhere): the "
            "comparison is not made")
        return
    check(spun < 0.85 and n["half_width_pct"] > q["half_width_pct"],
          "the spinner left no mark on a quiet host: spun at %.2f of the "
          "others; quiet %r, noisy %r" % (spun, quiet, noisy))


def test_bad_input(binary):
    for args, word in ((["--repeat", "0"], "--repeat"),
                       (["--repeat", "101"], "--repeat"),
                       (["--repeat", "x"], "--repeat"),
                       (["--repeat", "3", "--confidence", "40"], "level"),
                       (["--repeat", "3", "--confidence", "100"], "level"),
                       (["--repeat", "3", "--confidence", "95,0"], "width"),
                       (["--repeat", "3", "--confidence", "95,x"], "width"),
                       (["--confidence", "95"], "--repeat 2"),
                       (["--repeat", "2", "--confidence", "95,5"],
                        "--repeat 3")):
        r = run(binary, LOOP + ["-x", "tcp"] + args)
        first = (r.err.splitlines() or [""])[0]
        check(r.rc == 2 and word in first and first.startswith("rdmaperf: "),
              lambda: "%r: want exit 2 and a line naming %r\n%s" %
              (args, word, r.describe()))
    r = run(binary, ["-s", "--repeat", "3"])
    check(r.rc == 2 and "client's" in r.err,
          lambda: "-s --repeat: exit 2\n" + r.describe())


if __name__ == "__main__":
    main([(f.__name__[5:], f) for f in (
        test_statistics_and_median, test_interleaved_and_paired,
        test_confidence_stops, test_text_and_report, test_injected_noise,
        test_bad_input)])
