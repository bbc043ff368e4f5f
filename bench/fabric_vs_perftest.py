#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
rdmaperf against perftest across a wire: two guests of the virtual fabric
(tests/vm/fabric.py), the server on guest 2 and the client on guest 1,
Soft-RoCE on each virtio-net NIC, in one boot, ROUNDS rounds with the
tools taking turns to go first (perftest first in odd rounds):

  write 2 B latency      rdmaperf's unloaded p50 against ib_write_lat's
                         t_typical (-s 2 -n LAT_ITERS; both half a round
                         trip); rdmaperf gets the inline size perftest chose
  write 64 KiB q16       MiB/s against ib_write_bw -s 65536 -t 16 -n ITERS
                         (its average); rdmaperf --no-latency --warmup 0
  write 2 B q128 rate    messages/s against ib_write_bw -s 2 -t 128 -n
                         MSG_ITERS (its MsgRate); rdmaperf with perftest's
                         completion moderation (--signal 100 --post-list 1)

Each round's figures, then per figure the median of each tool and the
median, lowest and highest of the rounds' ratios rdmaperf / perftest
(latency: lower is better). Emulated RDMA is slow: only the ratios mean
something, and a ratio whose rounds straddle 1 is no verdict.

    bench/fabric_vs_perftest.py [RDMAPERF]
env: ROUNDS (3), LAT_ITERS (2000), ITERS (300), MSG_ITERS (20000)
"""
import json
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
import fabric  # noqa: E402
from fabric import addr  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "3"))
LAT_ITERS = int(os.environ.get("LAT_ITERS", "2000"))
ITERS = int(os.environ.get("ITERS", "300"))
MSG_ITERS = int(os.environ.get("MSG_ITERS", "20000"))
PORT = 18600
PT_PORT = 18700


def pt_rows(out):
    rows, head = [], False
    for line in out.splitlines():
        if re.match(r"\s*#bytes", line):
            head = True
            continue
        f = line.split()
        if head and len(f) >= 5 and f[0].isdigit() and f[1].isdigit():
            rows.append(f)
    return rows


def pt_inline(out):
    m = re.search(r"Max inline data\s*:\s*(\d+)", out)
    return int(m.group(1)) if m else 0


def perftest(fab, tool, args):
    """ib_* between the guests: its server on guest 2, the client on
    guest 1 retried until it connects. (output, first row)"""
    global PT_PORT
    PT_PORT += 1
    base = "%s -d rxe0 -x 1 -F -p %d %s" % (tool, PT_PORT, args)
    srv = fab.start(2, "exec " + base)
    time.sleep(1.0)
    out = ""
    for _ in range(20):
        r = fab.run(1, "%s %s 2>&1" % (base, addr(2)), 600)
        out = r.out
        if "#bytes" in out:
            break
        time.sleep(0.5)
    srv.wait(30)
    rows = pt_rows(out)
    return out, rows[0] if rows else None


def rp(fab, binary, args):
    r = fab.run(1, "%s -c -a %s -p %d -x rdma --json %s" %
                (binary, addr(2), PORT, args), 600)
    start = r.out.find("{")
    if r.rc != 0 or start < 0:
        sys.stderr.write("bench: rdmaperf %s failed:\n%s\n" % (args,
                                                              r.out[-800:]))
        return None
    return json.JSONDecoder().raw_decode(r.out[start:])[0]["results"][0]


# Each figure: perftest's arguments and its column, rdmaperf's arguments
# (an inline size, perftest's, is added where it says {inline}), and
# rdmaperf's figure. perftest's MsgRate is in Mpps.
FIGURES = (
    ("write 2 B lat p50 us (ib_write_lat)", True,
     ("ib_write_lat", "-s 2 -n %d" % LAT_ITERS, 4, 1),
     "-o write -S 2 --no-bandwidth --warmup 100 --lat-iterations %d "
     "--inline {inline}" % LAT_ITERS,
     lambda d: d["latency_unloaded"]["p50"]),
    ("write 64 KiB q16 MiB/s (ib_write_bw)", False,
     ("ib_write_bw", "-s 65536 -t 16 -n %d" % ITERS, 3, 1),
     "-o write -S 65536 -q 16 -C %d --warmup 0 --no-latency" % ITERS,
     lambda d: d["throughput"]["mib_per_second"]),
    ("write 2 B q128 msg/s (ib_write_bw)", False,
     ("ib_write_bw", "-s 2 -t 128 -n %d" % MSG_ITERS, 4, 1e6),
     "-o write -S 2 -q 128 -C %d --warmup 0 --no-latency --signal 100 "
     "--post-list 1 --inline {inline}" % MSG_ITERS,
     lambda d: d["throughput"]["messages_per_second"]))


def main():
    b = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else
                         "build/rdmaperf")
    rows = {f[0]: [] for f in FIGURES}
    inline = {}
    with fabric.Fabric(guests=2, mem=768) as fab:
        print("# rdmaperf vs perftest across the virtual fabric: fab1 -> "
              "fab2, rxe0 on virtio-net, %d rounds" % ROUNDS, flush=True)
        srv = fab.start(2, "exec %s -s -a %s -p %d --quiet" %
                        (b, addr(2), PORT))
        time.sleep(2)
        if not fab.alive(2) or srv.done():
            sys.exit("bench: the rdmaperf server did not start")
        for r in range(1, ROUNDS + 1):
            for name, _, (tool, pargs, col, scale), rargs, get in FIGURES:
                def run_pt():
                    out, row = perftest(fab, tool, pargs)
                    inline.setdefault(name, pt_inline(out))
                    return float(row[col]) * scale if row else float("nan")

                def run_rp():
                    d = rp(fab, b, rargs.format(inline=inline.get(name, 0)))
                    return get(d) if d else float("nan")
                # perftest first in odd rounds, rdmaperf in even ones (the
                # first round gives rdmaperf perftest's inline size)
                if r % 2:
                    p = run_pt()
                    a = run_rp()
                else:
                    a = run_rp()
                    p = run_pt()
                rows[name].append((a, p))
                print("round %d %-40s rdmaperf %10.4g perftest %10.4g "
                      "ratio %.3f" % (r, name, a, p, a / p if p else
                                      float("nan")), flush=True)
    print("\n%-40s %12s %12s %8s %8s %8s" % ("figure (median of rounds)",
                                            "rdmaperf", "perftest", "ratio",
                                            "lowest", "highest"))
    for name, _, _, _, _ in FIGURES:
        v = [(a, p) for a, p in rows[name] if a == a and p == p and p]
        if not v:
            print("%-40s no data" % name)
            continue
        q = [a / p for a, p in v]
        print("%-40s %12.4g %12.4g %8.3f %8.3f %8.3f%s" % (
            name, statistics.median(a for a, _ in v),
            statistics.median(p for _, p in v), statistics.median(q),
            min(q), max(q),
            "  (rounds straddle 1: no verdict)" if min(q) < 1 < max(q)
            else ""))


if __name__ == "__main__":
    main()
