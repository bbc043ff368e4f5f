#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
End to end: --plot FILE.svg over TCP loopback, each kind of plot.

  sweep         -S 64-64K (11 sizes): a series, a point per result
  distribution  -S 4K -C 20000: "under load" and "unloaded", a point per
                spectrum point of the JSON
  time          -S 64K -t 3 -i 0.5: a point per interval of the JSON
  --report      the sweep's saved JSON plotted again: the same series and
                points as the live run's plot

Each SVG is parsed as XML (the plots mark a series as <g class="series"
data-name="..."> and a point of its first panel as <circle class="point">)
and rendered to PNG by rsvg-convert. Without rsvg-convert (librsvg2-bin)
the test is skipped (exit 77).

    python3 tests/e2e/plots.py /path/to/rdmaperf
"""
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import QUICK, TestFailure, check, log, main, run  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
MIN_PNG_BYTES = 5000
SWEEP = ["--loopback", "-x", "tcp", "-S", "64-64K", "-C", "2000"] + QUICK
SWEEP_POINTS = 11  # 64 B to 64 KiB, the powers of two

TMP = None  # a directory for this run's files, removed at the end
_saved = {}  # what one test leaves for another: the sweep's files


def path(name):
    return os.path.join(TMP, name)


class Plot:
    """An SVG plot read back: its series and their points."""

    def __init__(self, svg):
        self.svg = svg
        try:
            self.root = ET.parse(svg).getroot()
        except (ET.ParseError, OSError) as e:
            raise TestFailure("%s is not well-formed XML: %s" % (svg, e))
        check(self.root.tag == NS + "svg", "%s: root element %r" %
              (svg, self.root.tag))
        self.series = [g for g in self.root.iter(NS + "g")
                       if g.get("class") == "series"]

    def names(self):
        return [g.get("data-name") for g in self.series]

    def points(self, g):
        return [c for c in g.iter(NS + "circle") if c.get("class") == "point"]

    def shape(self):
        """[(series name, points)] in the document's order."""
        return [(g.get("data-name"), len(self.points(g)))
                for g in self.series]

    def texts(self):
        return ["".join(t.itertext()) for t in self.root.iter(NS + "text")]

    def title(self):
        t = self.root.find(NS + "title")
        return "".join(t.itertext()) if t is not None else ""

    def check_render(self):
        """rsvg-convert draws it into a PNG of some substance."""
        png = self.svg + ".png"
        p = subprocess.run(["rsvg-convert", "-o", png, self.svg],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=60)
        check(p.returncode == 0, "rsvg-convert %s: exit %d: %s" %
              (self.svg, p.returncode, p.stderr.strip()))
        size = os.path.getsize(png) if os.path.exists(png) else 0
        check(size > MIN_PNG_BYTES, "%s: a PNG of %d bytes" % (png, size))

    def describe(self):
        return "%s: series %r" % (self.svg, self.shape())


def plot_run(binary, svg, args):
    """rdmaperf @args --plot @svg --json, which must succeed: the JSON
    document and the plot."""
    r = run(binary, list(args) + ["--plot", svg, "--json"])
    check(r.rc == 0, lambda: "rdmaperf failed:\n" + r.describe())
    doc = r.json()
    check(doc["error"] is None, "error %r" % doc["error"])
    check(os.path.exists(svg), lambda: "no plot written:\n" + r.describe())
    return r, doc, Plot(svg)


def has_throughput(x):
    t = x.get("throughput")
    return isinstance(t, dict) and isinstance(t.get("bits_per_second"),
                                              (int, float))


def check_titles(plot, doc):
    """The title names the operation and both hosts."""
    title = plot.title()
    check("write" in title, "title %r lacks the operation" % title)
    hosts = doc.get("hosts") or {}
    for side in ("client", "server"):
        name = (hosts.get(side) or {}).get("hostname")
        if name:
            check(name[:60] in title, "title %r lacks the %s host %r" %
                  (title, side, name))


def sweep(binary):
    """The sweep's run, once for the tests that need it."""
    if "sweep" not in _saved:
        r, doc, plot = plot_run(binary, path("A.svg"), SWEEP)
        with open(path("A.json"), "w") as f:
            f.write(r.out)
        _saved["sweep"] = (doc, plot)
    return _saved["sweep"]


def test_sweep(binary):
    """-S 64-64K: one series, a point per successful result."""
    doc, plot = sweep(binary)
    res = doc["results"]
    check(len(res) == SWEEP_POINTS, "%d results, want %d" %
          (len(res), SWEEP_POINTS))
    good = [x for x in res if x.get("ok") and has_throughput(x)]
    check(plot.names() == ["tcp"], plot.describe)
    n = len(plot.points(plot.series[0]))
    check(n == len(good), lambda: "%d points for %d results with a "
          "throughput; %s" % (n, len(good), plot.describe()))
    texts = plot.texts()
    for label in ("64 B", "64 KiB", "message size", "throughput (Gb/s)"):
        check(label in texts, "no %r among the plot's text: %r" %
              (label, texts))
    check(any("latency" in t for t in texts), "no latency axis: %r" % texts)
    check(plot.series[0].find(NS + "polyline") is not None,
          "the series has no line")
    check_titles(plot, doc)
    plot.check_render()


def spectrum_len(lat):
    return len(lat.get("spectrum") or []) if isinstance(lat, dict) else 0


def test_distribution(binary):
    """-S 4K -C 20000: latency against percentile, under load and
    unloaded, a point per spectrum point."""
    _, doc, plot = plot_run(binary, path("C.svg"),
                            ["--loopback", "-x", "tcp", "-S", "4K", "-C",
                             "20000"] + QUICK)
    r = doc["results"][0]
    check(plot.names() == ["tcp under load", "tcp unloaded"],
          plot.describe)
    want = [spectrum_len(r.get("latency")),
            spectrum_len(r.get("latency_unloaded"))]
    got = [n for _, n in plot.shape()]
    check(got == want, "points per series %r, the JSON's spectra %r" %
          (got, want))
    check(want[0] > 10, "a spectrum of %d points for 20000 operations" %
          want[0])
    texts = plot.texts()
    for label in ("0%", "90%", "99%", "percentile"):
        check(label in texts, "no %r among the plot's text: %r" %
              (label, texts))
    check_titles(plot, doc)
    plot.check_render()


def test_time(binary):
    """-S 64K -t 3 -i 0.5: throughput and p99 over time, a point per
    interval."""
    _, doc, plot = plot_run(binary, path("D.svg"),
                            ["--loopback", "-x", "tcp", "-S", "64K", "-t",
                             "3", "-i", "0.5"] + QUICK)
    ivs = doc["results"][0].get("intervals") or []
    check(4 <= len(ivs) <= 8, "%d intervals of 0.5 s in 3 s" % len(ivs))
    want = len([iv for iv in ivs if has_throughput(iv) and
                (iv.get("seconds") or 0) > 0])
    check(plot.names() == ["tcp"], plot.describe)
    n = len(plot.points(plot.series[0]))
    check(n == want, "%d points for %d intervals; %s" %
          (n, want, plot.describe()))
    texts = plot.texts()
    check(any(t.startswith("time since") for t in texts),
          "no time axis: %r" % texts)
    check(any(t.startswith("p99 latency") for t in texts),
          "no p99 latency axis: %r" % texts)
    check_titles(plot, doc)
    plot.check_render()


def test_report(binary):
    """--report A.json --plot E.svg: the saved sweep plotted again, the
    same series with the same points as the live run's plot."""
    _, live = sweep(binary)
    r = run(binary, ["--report", path("A.json"), "--plot", path("E.svg")])
    check(r.rc == 0, lambda: "--report failed:\n" + r.describe())
    again = Plot(path("E.svg"))
    check(again.shape() == live.shape(), "--report plot %r, the live "
          "run's %r" % (again.shape(), live.shape()))
    check(again.title() == live.title(), "titles differ: %r and %r" %
          (again.title(), live.title()))
    again.check_render()


TESTS = [
    ("sweep", test_sweep),
    ("distribution", test_distribution),
    ("time", test_time),
    ("report_replot", test_report),
]

if __name__ == "__main__":
    if shutil.which("rsvg-convert") is None:
        log("SKIP: rsvg-convert is not installed (librsvg2-bin): the plots "
            "cannot be rendered")
        sys.exit(77)
    TMP = tempfile.mkdtemp(prefix="rdmaperf-plots-")
    try:
        main(TESTS)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
