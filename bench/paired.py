#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The summary of a bench's interleaved rounds: for each figure, the medians
of both tools, the paired ratio rdmaperf / peer (the geometric mean of the
rounds' ratios: each round ran both tools back to back, so drift between
rounds cancels in its ratio), the ratio's 95% interval (Student's t on
the mean log ratio, as `rdmaperf --repeat` computes it in core/stats.c),
and a verdict: faster, slower, or no significant difference (the interval
holds 1). A figure is better lower when its name holds a latency unit
("us", "ns") or "latency"; otherwise higher is better.

    paired.py FMT < ROWS     # ROWS: "what<TAB>rdmaperf<TAB>peer", a line
                             # per figure per round; "nan" when not had

FMT is common.sh's BENCH_FMT with two more columns. Figures print in the
order they first appear. Exit 0; a row that does not parse is skipped
with a line on stderr.
"""
import math
import re
import statistics
import sys

# Student's t, 97.5% quantiles by degrees of freedom (the tables'); above
# 30 the normal's 1.96 is within 2%
T975 = [math.nan, 12.7062, 4.30265, 3.18245, 2.77645, 2.57058, 2.44691,
        2.36462, 2.30600, 2.26216, 2.22814, 2.20099, 2.17881, 2.16037,
        2.14479, 2.13145, 2.11991, 2.10982, 2.10092, 2.09302, 2.08596,
        2.07961, 2.07387, 2.06866, 2.06390, 2.05954, 2.05553, 2.05183,
        2.04841, 2.04523, 2.04227]
LOWER_BETTER = re.compile(r"(^|[ (/])(us|ns|latency)([ )/,]|$)")


def num(s):
    try:
        return float(s)
    except ValueError:
        return math.nan


def t975(df):
    return T975[df] if df < len(T975) else 1.96


def paired(a, b):
    """(ratio, lo, hi, n) of a against b over the rounds where both are
    positive; lo and hi NaN with fewer than two."""
    logs = [math.log(x / y) for x, y in zip(a, b)
            if x > 0 and y > 0 and math.isfinite(x) and math.isfinite(y)]
    if not logs:
        return math.nan, math.nan, math.nan, 0
    m = statistics.mean(logs)
    if len(logs) < 2:
        return math.exp(m), math.nan, math.nan, 1
    half = t975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(m), math.exp(m - half), math.exp(m + half), len(logs)


def verdict(what, ratio, lo, hi):
    if math.isnan(lo):
        return "too few rounds" if not math.isnan(ratio) else "nan"
    if lo <= 1 <= hi:
        return "no significant difference"
    better = (ratio < 1) if LOWER_BETTER.search(what) else (ratio > 1)
    return "faster" if better else "slower"


def med(v):
    v = [x for x in v if not math.isnan(x)]
    return statistics.median(v) if v else math.nan


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: paired.py FMT < ROWS\n")
        return 2
    fmt = argv[1].replace("\\n", "\n")
    order, rounds = [], {}
    for line in sys.stdin:
        f = line.rstrip("\n").split("\t")
        if len(f) != 3:
            sys.stderr.write("paired.py: skipped %r\n" % line)
            continue
        if f[0] not in rounds:
            order.append(f[0])
            rounds[f[0]] = []
        rounds[f[0]].append((num(f[1]), num(f[2])))
    for what in order:
        a = [x for x, _ in rounds[what]]
        b = [y for _, y in rounds[what]]
        r, lo, hi, n = paired(a, b)
        ci = "nan" if math.isnan(lo) else "%.3f-%.3f" % (lo, hi)
        print(fmt % (what, "%.5g" % med(a), "%.5g" % med(b),
                     "nan" if math.isnan(r) else "%.3f" % r, ci,
                     "%s (n=%d)" % (verdict(what, r, lo, hi), n)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
