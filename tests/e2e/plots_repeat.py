#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
End to end: --repeat's error bars in --plot, over TCP loopback.

  sweep         -S 4K,64K -t 0.2 --repeat 3: a bar (<line class="errbar">
                and its caps, <line class="errcap">) at each point whose
                figure has an interval, spanning the JSON's interval on the
                plot's own scale (read back from its tick labels), standing
                at the point; the legend says what the bars are
  --report      the saved sweep plotted again: the same bars
  distribution  -S 4K -C 20000 --repeat 2: a bar at p50, p99 and p99.9
                under load and at the unloaded p50, each at its percentile
  no --repeat   the same sweep run once: no bar, no legend entry

Each SVG is parsed as XML and rendered to PNG by rsvg-convert. Without
rsvg-convert (librsvg2-bin) the test is skipped (exit 77).

    python3 tests/e2e/plots_repeat.py /path/to/rdmaperf
"""
import math
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import QUICK, check, check_doc, log, main, run  # noqa: E402
from plots import NS, Plot  # noqa: E402

SWEEP = ["--loopback", "-x", "tcp", "-S", "4K,64K", "-t", "0.2"] + QUICK
PX_TOL = 0.6  # px: coordinates are printed to 0.1 px, ticks too

TMP = None  # a directory for this run's files, removed at the end
_saved = {}


def path(name):
    return os.path.join(TMP, name)


def plot_run(binary, svg, args):
    """rdmaperf @args --plot @svg --json: the document and the plot."""
    r = run(binary, list(args) + ["--plot", svg, "--json"])
    check(r.rc == 0, lambda: "rdmaperf failed:\n" + r.describe())
    doc = r.json()
    check_doc(doc, "plots_repeat")
    check(doc["error"] is None, "error %r" % doc["error"])
    return r, doc, Plot(svg)


def lines(plot, cls):
    """The <line class=@cls> of @plot: (panel, x1, y1, x2, y2)."""
    out = []
    for e in plot.root.iter(NS + "line"):
        if e.get("class") != cls:
            continue
        clip = e.get("clip-path") or ""
        check(clip.startswith("url(#rp-clip"), "%s without its panel's "
              "clip path: %r" % (cls, e.attrib))
        out.append((int(clip[len("url(#rp-clip"):-1]),) +
                   tuple(float(e.get(k)) for k in ("x1", "y1", "x2", "y2")))
    return out


class Scale:
    """One axis of panel @k, from its tick labels: y labels end 8 px left
    of the frame, 4 px under their tick; x labels are centred on it."""

    def __init__(self, plot, k, y, log_scale, percentile=False):
        axes = [g for g in plot.root.iter(NS + "g")
                if g.get("class") == "axes"]
        ticks = []
        for t in axes[k].iter(NS + "text"):
            if t.get("class") != "tick" or \
                    t.get("text-anchor") != ("end" if y else "middle"):
                continue
            label = "".join(t.itertext())
            v = float(label.rstrip("%"))
            if percentile:
                v = 100 / (100 - v)
            ticks.append((v, float(t.get("y")) - 4 if y
                          else float(t.get("x"))))
        check(len(ticks) >= 2, "panel %d: %d tick labels" % (k, len(ticks)))
        (self.v0, self.p0), (self.v1, self.p1) = ticks[0], ticks[-1]
        self.log = log_scale

    def px(self, v):
        if self.log:
            t = math.log(v / self.v0) / math.log(self.v1 / self.v0)
        else:
            t = (v - self.v0) / (self.v1 - self.v0)
        return self.p0 + t * (self.p1 - self.p0)


def near(got, want, what):
    check(abs(got - want) <= PX_TOL, "%s at %.1f px, want %.1f" %
          (what, got, want))


def frames(plot, k):
    """Panel @k's frame: its top and bottom, in px."""
    f = [r for r in plot.root.iter(NS + "rect")
         if r.get("class") == "frame"][k]
    return float(f.get("y")), float(f.get("y")) + float(f.get("height"))


def interval(res, key):
    fig = (res.get("repeat") or {}).get("figures", {}).get(key)
    return fig.get("interval") if fig else None


def legend(plot, n):
    want = ("bars: 95%% confidence interval of the mean, n=%d; points: the "
            "median run" % n)
    check(want in plot.texts(), "no legend entry %r among %r" %
          (want, plot.texts()))


def check_bar(bar, lo, hi, scale, what, frame):
    """A vertical bar from @lo to @hi: its upper end at @hi, or at the
    frame's @top when @hi is above the frame (the axis' top tick has an
    inset above it: an end there is drawn where it is); its lower end at
    @lo, or at the frame's @bottom when @lo is below what the axis shows
    (0 on a log axis, or far under the lowest point)."""
    _, x1, y1, x2, y2 = bar
    top, bottom = frame
    check(x1 == x2, "%s is not upright: %r" % (what, bar))
    if abs(y2 - top) > 0.05:
        near(y2, scale.px(hi), what + "'s upper end")
    else:
        check(scale.px(hi) <= top + PX_TOL, "%s: cut at the frame's top, "
              "its upper bound %g under it: %r" % (what, hi, bar))
    if abs(y1 - bottom) > 0.05:
        check(lo > 0 or not scale.log, "%s: a lower bound of %g drawn "
              "above the frame's bottom: %r" % (what, lo, bar))
        near(y1, scale.px(lo), what + "'s lower end")
    elif lo > 0 or not scale.log:
        check(scale.px(lo) >= bottom - PX_TOL, "%s: cut at the frame's "
              "bottom, its lower bound %g above it: %r" % (what, lo, bar))


def sweep(binary):
    if "sweep" not in _saved:
        r, doc, plot = plot_run(binary, path("S.svg"),
                                SWEEP + ["--repeat", "3"])
        with open(path("S.json"), "w") as f:
            f.write(r.out)
        _saved["sweep"] = (doc, plot)
    return _saved["sweep"]


def test_sweep(binary):
    """Throughput bars in the first panel at the points, latency bars in
    the second, each spanning its interval."""
    doc, plot = sweep(binary)
    res = doc["results"]
    check(len(res) == 2 and all(x["repeat"]["n"] == 3 for x in res),
          "two points repeated 3 times: %r" % [x.get("repeat") for x in res])
    bars = lines(plot, "errbar")
    bw = [b for b in bars if b[0] == 0]
    lat = [b for b in bars if b[0] == 1]
    want = [x for x in res if interval(x, "throughput")]
    check(len(bw) == len(want), "%d throughput bars for %d intervals" %
          (len(bw), len(want)))
    points = plot.points(plot.series[0])
    check(len(points) == len(res), "%d points" % len(points))
    sc = Scale(plot, 0, True, False)
    k = 0
    for x, pt in zip(res, points):
        iv = interval(x, "throughput")
        if not iv:
            continue
        near(bw[k][1], float(pt.get("cx")), "the throughput bar")
        check_bar(bw[k], iv[0], iv[1], sc, "the throughput bar",
                  frames(plot, 0))
        k += 1
    # the second panel draws the unloaded latency when the test has it
    keys = (["unloaded_p50"] if any(x.get("latency_unloaded") for x in res)
            else ["p50", "p99"])
    want = [(x, key) for key in keys for x in res if interval(x, key)]
    check(len(lat) == len(want), "%d latency bars for the intervals of %r"
          " (%d)" % (len(lat), keys, len(want)))
    sc = Scale(plot, 1, True, True)
    for b, (x, key) in zip(lat, want):
        iv = interval(x, key)
        check_bar(b, iv[0], iv[1], sc, "the %s bar at %d B" %
                  (key, x["size"]), frames(plot, 1))
    caps = lines(plot, "errcap")
    check(len(bars) <= len(caps) <= 2 * len(bars),
          "%d caps for %d bars" % (len(caps), len(bars)))
    legend(plot, 3)
    plot.check_render()


def test_report(binary):
    """--report S.json --plot R.svg: the same bars as the live run's."""
    _, live = sweep(binary)
    r = run(binary, ["--report", path("S.json"), "--plot", path("R.svg")])
    check(r.rc == 0, lambda: "--report failed:\n" + r.describe())
    again = Plot(path("R.svg"))
    for cls in ("errbar", "errcap"):
        check(lines(again, cls) == lines(live, cls), "--report's %s %r, "
              "the live run's %r" % (cls, lines(again, cls),
                                     lines(live, cls)))
    again.check_render()


def test_distribution(binary):
    """-S 4K -C 20000 --repeat 2: bars at 50%, 99%, 99.9% under load and
    at 50% unloaded, each spanning its interval."""
    _, doc, plot = plot_run(binary, path("D.svg"),
                            ["--loopback", "-x", "tcp", "-S", "4K", "-C",
                             "20000", "--repeat", "2"] + QUICK)
    x = doc["results"][0]
    count = x["latency"]["count"]
    want = [(k, p) for k, p in (("p50", 50), ("p99", 99), ("p99_9", 99.9))
            if interval(x, k) and 100 / (100 - p) <= count]
    if interval(x, "unloaded_p50"):
        want.append(("unloaded_p50", 50))
    bars = lines(plot, "errbar")
    check(len(bars) == len(want), "%d bars for %r" % (len(bars), want))
    sx = Scale(plot, 0, False, True, percentile=True)
    ys = [float(b[2]) for b in bars] + [float(b[4]) for b in bars]
    for b, (k, p) in zip(bars, want):
        near(b[1], sx.px(100 / (100 - p)), "the %s bar" % k)
    check(all(y <= frames(plot, 0)[1] + 0.05 for y in ys),
          "a bar below the frame: %r" % bars)
    legend(plot, 2)
    plot.check_render()


def test_once(binary):
    """The sweep without --repeat: no bar, no legend entry for them."""
    _, _, plot = plot_run(binary, path("O.svg"), SWEEP)
    check(not lines(plot, "errbar") and not lines(plot, "errcap"),
          "bars without --repeat")
    check(not any(t.startswith("bars:") for t in plot.texts()),
          "a legend entry for bars without --repeat: %r" % plot.texts())
    plot.check_render()


TESTS = [
    ("sweep", test_sweep),
    ("report_replot", test_report),
    ("distribution", test_distribution),
    ("once", test_once),
]

if __name__ == "__main__":
    if shutil.which("rsvg-convert") is None:
        log("SKIP: rsvg-convert is not installed (librsvg2-bin): the plots "
            "cannot be rendered")
        sys.exit(77)
    TMP = tempfile.mkdtemp(prefix="rdmaperf-plots-repeat-")
    try:
        main(TESTS)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
