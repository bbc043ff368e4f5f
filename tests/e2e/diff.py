#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
rdmaperf diff OLD.json NEW.json: the regression gate between two saved
documents. On tests/fixtures/diff_repeat.json (a real --repeat 5 run of
tcp on loopback) with its values set to known series: a real regression
(exit 3, the interval recomputed here by Welch's formula), the same
change within --threshold, an improvement, no change; a point failed in
NEW; points in one document only; tests/fixtures/loopback_sweep.json (a
document of an older rdmaperf, without repeats: "not judged"); two
different tests, and bad usage (exit 2); --figures, --json against its
schema, --plot rendered; and two fresh runs diffed end to end.

    python3 tests/e2e/diff.py /path/to/rdmaperf
"""
import copy
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from e2elib import QUICK, check, main, run  # noqa: E402
import check_json  # noqa: E402

FIXTURES = os.path.join(HERE, "..", "fixtures")
REPEAT_DOC = os.path.join(FIXTURES, "diff_repeat.json")
OLD_DOC = os.path.join(FIXTURES, "loopback_sweep.json")
FIGS = ("throughput", "messages_per_second", "p50", "p99", "p99_9",
        "unloaded_p50", "client_cpu", "server_cpu")
# a 1% spread, the same in both runs: Welch's df is then 2 (n - 1) = 8
BASE = [40.0, 40.4, 39.6, 40.2, 39.8]
T975_DF8 = 2.306004


def load(path):
    with open(path) as f:
        return json.load(f)


def quiet(doc):
    """@doc with every figure's repetitions set to BASE scaled to its
    median: a known, quiet series."""
    d = copy.deepcopy(doc)
    for r in d["results"]:
        for f in r["repeat"]["figures"].values():
            f["values"] = [v / 40.0 * f["median"] for v in BASE]
    return d


def scaled(doc, point, fig, factor):
    d = copy.deepcopy(doc)
    f = d["results"][point]["repeat"]["figures"][fig]
    f["values"] = [v * factor for v in f["values"]]
    return d


class Docs:
    def __init__(self, tmp):
        self.tmp, self.n = tmp, 0

    def write(self, doc):
        self.n += 1
        path = os.path.join(self.tmp, "doc%d.json" % self.n)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path


def diff(binary, old, new, *extra):
    return run(binary, ["diff", old, new] + list(extra))


def diff_json(binary, old, new, *extra):
    r = diff(binary, old, new, "--json", *extra)
    check(r.rc in (0, 3), lambda: "diff --json\n" + r.describe())
    doc = json.loads(r.out)
    errors = check_json.validate_diff(doc)
    check(not errors, lambda: "diff --json against its schema:\n  " +
          "\n  ".join(errors[:10]) + "\n" + r.out[:2000])
    return r, doc


def figure(doc, point, fig):
    return doc["points"][point]["figures"][fig]


def test_regression(binary):
    base = quiet(load(REPEAT_DOC))
    with tempfile.TemporaryDirectory() as tmp:
        docs = Docs(tmp)
        old = docs.write(base)
        new = docs.write(scaled(base, 1, "throughput", 0.8))
        r, doc = diff_json(binary, old, new)
        check(r.rc == 3 and doc["pass"] is False and
              doc["regressions"] == 1, lambda: "a 20%% drop: exit 3\n%s" %
              r.describe())
        x = figure(doc, 1, "throughput")
        # Welch by hand: the logs' difference, se^2 = s^2/5 + s^2/5
        logs = [math.log(v) for v in BASE]
        s2 = statistics.variance(logs)
        half = T975_DF8 * math.sqrt(2 * s2 / 5)
        want = (0.8 * math.exp(-half), 0.8 * math.exp(half))
        check(abs(x["ratio"] - 0.8) < 1e-9 and
              abs(x["interval"][0] - want[0]) < 1e-6 and
              abs(x["interval"][1] - want[1]) < 1e-6 and
              x["significant"] is True and x["verdict"] == "regressed" and
              x["n_old"] == 5 and x["n_new"] == 5,
              "throughput %r, want ratio 0.8 in %r" % (x, want))
        check(figure(doc, 1, "p50")["verdict"] ==
              "no significant difference",
              "an unchanged figure: %r" % figure(doc, 1, "p50"))
        t = diff(binary, old, new)
        check(t.rc == 3 and "REGRESSED" in t.out and
              "FAIL: 1 regression beyond 5%" in t.out,
              lambda: "text\n" + t.describe())
        # the same drop within the threshold: worse, no gate
        w, doc = diff_json(binary, old, new, "--threshold", "30")
        check(w.rc == 0 and figure(doc, 1, "throughput")["verdict"] ==
              "worse", lambda: "--threshold 30\n" + w.describe())
        # a latency up by 20% is a regression too, and down is better
        up = docs.write(scaled(base, 0, "p99", 1.2))
        u, doc = diff_json(binary, old, up)
        check(u.rc == 3 and figure(doc, 0, "p99")["verdict"] ==
              "regressed", lambda: "p99 +20%\n" + u.describe())
        down = docs.write(scaled(scaled(base, 0, "p99", 0.8), 1,
                                 "throughput", 1.25))
        b, doc = diff_json(binary, old, down)
        check(b.rc == 0 and figure(doc, 0, "p99")["verdict"] == "better" and
              figure(doc, 1, "throughput")["verdict"] == "better",
              lambda: "improvements\n" + b.describe())
        # --figures: a regression in a figure not asked about is not seen
        f, doc = diff_json(binary, old, new, "--figures", "p50,p99")
        check(f.rc == 0 and sorted(doc["points"][1]["figures"]) ==
              ["p50", "p99"], lambda: "--figures p50,p99\n" + f.describe())


def test_noise_is_not_a_regression(binary):
    """The fixture's own repetitions (a loaded host: CoV in the tens of
    percent) against themselves with each value 10% lower: the change is
    real but within the noise Welch sees, so n.s. and exit 0, unless the
    noise is small enough to resolve it."""
    real = load(REPEAT_DOC)
    with tempfile.TemporaryDirectory() as tmp:
        docs = Docs(tmp)
        old = docs.write(real)
        r, doc = diff_json(binary, old, old)
        check(r.rc == 0 and doc["pass"] and all(
            x["verdict"] == "no significant difference" and
            x["change_pct"] == 0
            for p in doc["points"] for x in p["figures"].values()),
            lambda: "a document against itself\n" + r.describe())
        new = docs.write(scaled(real, 1, "throughput", 0.9))
        r, doc = diff_json(binary, old, new)
        x = figure(doc, 1, "throughput")
        vals = real["results"][1]["repeat"]["figures"]["throughput"]["values"]
        logs = [math.log(v) for v in vals]
        half = T975_DF8 * math.sqrt(2 * statistics.variance(logs) / 5)
        resolvable = half < abs(math.log(0.9))
        check(x["significant"] == resolvable and
              (r.rc == 3) == resolvable,
              "-10%% on noise of +-%.1f%%: significant %r, exit %d" %
              (100 * (math.exp(half) - 1), x["significant"], r.rc))


def test_points(binary):
    base = quiet(load(REPEAT_DOC))
    with tempfile.TemporaryDirectory() as tmp:
        docs = Docs(tmp)
        old = docs.write(base)
        failed = copy.deepcopy(base)
        failed["results"][0]["ok"] = False
        failed["results"][0]["error"] = {"code": "run", "message": "boom"}
        r = diff(binary, old, docs.write(failed))
        check(r.rc == 3 and "FAILED in new" in r.out,
              lambda: "a point failed in new\n" + r.describe())
        r = diff(binary, docs.write(failed), old)
        check(r.rc == 0 and "failed in old" in r.out,
              lambda: "a point failed in old only\n" + r.describe())
        fewer = copy.deepcopy(base)
        del fewer["results"][1]
        r, doc = diff_json(binary, old, docs.write(fewer))
        check(r.rc == 0 and [p["in"] for p in doc["points"]] ==
              ["both", "old"], lambda: "a point only in old\n" +
              r.describe())
        t = diff(binary, docs.write(fewer), old)
        check(t.rc == 0 and "only in new: tcp write 64 KiB q8" in t.out,
              lambda: "only in new\n" + t.describe())


def test_older_document(binary):
    """loopback_sweep.json was written before --repeat, counters and link
    facts: it reads, and one run a side cannot be judged."""
    old = load(OLD_DOC)
    with tempfile.TemporaryDirectory() as tmp:
        docs = Docs(tmp)
        r, doc = diff_json(binary, OLD_DOC, OLD_DOC)
        check(r.rc == 0 and doc["not_judged"] == 32 and all(
            x["verdict"] == "not judged" and x["interval"] is None and
            x["significant"] is None
            for p in doc["points"] for x in p["figures"].values()),
            lambda: "an older document against itself\n" + r.describe())
        t = diff(binary, OLD_DOC, OLD_DOC)
        check("cannot be judged" in t.out and "(one run)" in t.out,
              lambda: "text says not judged\n" + t.describe())
        slower = copy.deepcopy(old)
        tp = slower["results"][2]["throughput"]
        tp["bits_per_second"] *= 0.5
        r = diff(binary, OLD_DOC, docs.write(slower))
        check(r.rc == 3 and "not judged for significance" in r.out,
              lambda: "half the throughput, one run: exit 3\n" +
              r.describe())


def test_bad_input(binary):
    doc = REPEAT_DOC
    with tempfile.TemporaryDirectory() as tmp:
        junk = os.path.join(tmp, "junk.json")
        with open(junk, "w") as f:
            f.write("{not json")
        cases = (([], "two documents"), ([doc], "two documents"),
                 ([doc, doc, doc], "more than two"),
                 ([doc, doc, "--threshold", "0"], "--threshold"),
                 ([doc, doc, "--threshold", "x"], "--threshold"),
                 ([doc, doc, "--figures", "bw"], "--figures"),
                 ([doc, doc, "--figures", ","], "--figures"),
                 ([doc, doc, "--confidence", "40"], "--confidence"),
                 ([doc, doc, "--bogus"], "unknown option"),
                 ([doc, doc, "--plot"], "needs an argument"),
                 ([doc, os.path.join(tmp, "missing.json")], "missing.json"),
                 ([doc, junk], "junk.json"),
                 ([doc, OLD_DOC], "no point in common"))
        for args, word in cases:
            r = run(binary, ["diff"] + args)
            first = (r.err.splitlines() or [""])[0]
            check(r.rc == 2 and first.startswith("rdmaperf diff: ") and
                  word in first and not r.out,
                  lambda: "diff %r: want exit 2 and a line naming %r\n%s"
                  % (args, word, r.describe()))


def test_plot(binary):
    base = quiet(load(REPEAT_DOC))
    with tempfile.TemporaryDirectory() as tmp:
        docs = Docs(tmp)
        old = docs.write(base)
        new = docs.write(scaled(base, 1, "throughput", 0.8))
        svg = os.path.join(tmp, "diff.svg")
        r = diff(binary, old, new, "--plot", svg)
        check(r.rc == 3, lambda: "--plot\n" + r.describe())
        root = ET.parse(svg).getroot()
        ns = "{http://www.w3.org/2000/svg}"
        rows = [g for g in root.iter(ns + "g") if g.get("class") == "change"]
        check(len(rows) == 16, "%d change rows, want 16" % len(rows))
        red = [g for g in rows if any(c.get("fill") == "#c0392b"
                                      for c in g.iter(ns + "circle"))]
        check(len(red) == 1 and "64 KiB" in red[0].get("data-name") and
              "throughput" in red[0].get("data-name"),
              "one regressed row, 64 KiB throughput: %r" %
              [g.get("data-name") for g in red])
        if shutil.which("rsvg-convert"):
            png = os.path.join(tmp, "diff.png")
            p = subprocess.run(["rsvg-convert", "-o", png, svg],
                               capture_output=True, text=True)
            check(p.returncode == 0 and os.path.getsize(png) > 1000,
                  "rsvg-convert: %s" % p.stderr)
        bad = diff(binary, old, new, "--plot", os.path.join(tmp, "no", "x"))
        check(bad.rc == 1 and "cannot write" in bad.err,
              lambda: "--plot to a missing folder\n" + bad.describe())


def test_fresh_runs(binary):
    """Two runs of this build, --repeat 3 each: whatever the noise says,
    the pipeline holds (exit 0 or 3, every figure judged)."""
    args = ["--loopback", "-x", "tcp", "-o", "write", "-S", "16K", "-q", "8",
            "-t", "0.2", "--repeat", "3", "--json"] + QUICK
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i in range(2):
            r = run(binary, args)
            check(r.rc == 0, lambda: "run %d\n%s" % (i, r.describe()))
            paths.append(os.path.join(tmp, "run%d.json" % i))
            with open(paths[-1], "w") as f:
                f.write(r.out)
        r, doc = diff_json(binary, paths[0], paths[1])
        figs = doc["points"][0]["figures"]
        check(len(doc["points"]) == 1 and set(figs) == set(FIGS) and
              all(x["n_old"] == 3 and x["n_new"] == 3 and
                  x["significant"] is not None for x in figs.values()),
              lambda: "two fresh runs\n" + r.out[:3000])
        check((r.rc == 3) == (doc["regressions"] > 0),
              "exit %d with %d regressions" % (r.rc, doc["regressions"]))


if __name__ == "__main__":
    main([(f.__name__[5:], f) for f in (
        test_regression, test_noise_is_not_a_regression, test_points,
        test_older_document, test_bad_input, test_plot, test_fresh_runs)])
