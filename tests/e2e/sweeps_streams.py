#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
End to end over TCP: sweeps (sizes x depths over one setup), several streams
over several threads, both directions at once, --wait event, and the CPU
figures (issue 8), against a real server process.

    python3 tests/e2e/sweeps_streams.py /path/to/rdmaperf
"""
import os
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import QUICK, Server, check, client, client_json, main  # noqa: E402

OPS = ("write", "read", "send")


def run_json(binary, port, args, timeout=120):
    t0 = time.monotonic()
    doc = client_json(binary, port, ["-x", "tcp"] + QUICK + list(args),
                      timeout)
    return doc, time.monotonic() - t0


def test_sweep_product(binary):
    """-S 3 sizes x -q 2 depths: 6 results, size-major, the counts asked."""
    sizes, depths = [1024, 4096, 65536], [1, 16]
    with Server(binary) as srv:
        doc, _ = run_json(binary, srv.port,
                          ["-S", "1K,4K,64K", "-q", "1,16", "-C", "500"])
    res = doc["results"]
    check(len(res) == 6, "%d results for a 3x2 sweep" % len(res))
    want = [(s, d) for s in sizes for d in depths]
    got = [(r["size"], r["queue_depth"]) for r in res]
    check(got == want, "points %r, expected %r" % (got, want))
    for r in res:
        check(r["messages"] == 500 and r["bytes"] == 500 * r["size"],
              "point %r: %r messages, %r bytes" %
              ((r["size"], r["queue_depth"]), r["messages"], r["bytes"]))
        check(r["latency"]["count"] == 500, "latency count %r" %
              r["latency"]["count"])
        # what crossed the wire: the server received this point's size
        srv = r["cpu"]["server"]
        check(srv["messages"] == 500 and srv["bytes"] == 500 * r["size"],
              "point %r: the server received %r messages, %r bytes" %
              ((r["size"], r["queue_depth"]), srv["messages"], srv["bytes"]))
        check(r["latency_unloaded"]["count"] == 200, "unloaded count")
    check(doc["error"] is None, "error %r" % doc["error"])


def test_sweep_range_default_iterations(binary):
    """-S 48K-512K: the ends and the powers of two between; without -C each
    runs the byte budget's count (256 MiB / size, at least 1000, at most
    1000000)."""
    with Server(binary) as srv:
        doc, _ = run_json(binary, srv.port, ["-S", "48K-512K", "--no-latency",
                                             "-q", "8"], timeout=300)
    res = doc["results"]
    want = [48 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10]
    check([r["size"] for r in res] == want,
          "sizes %r" % [r["size"] for r in res])
    for r in res:
        want = min(1000000, max(1000, (256 << 20) // r["size"]))
        check(r["messages"] == want, "size %d: %d messages, expected %d" %
              (r["size"], r["messages"], want))


def test_streams_threads(binary):
    """-P 4 -T 2: four streams whose bytes add up on both sides."""
    with Server(binary) as srv:
        doc, _ = run_json(binary, srv.port, ["-S", "16K", "-q", "8", "-P",
                                             "4", "-T", "2", "-C", "2000"])
    r = doc["results"][0]
    check(r["streams"] == 4, "streams %r" % r.get("streams"))
    per = r["per_stream"]
    check(len(per) == 4, "%d per-stream results" % len(per))
    check(sorted(p["stream"] for p in per) == [0, 1, 2, 3], "stream ids")
    check(sorted(set(p["thread"] for p in per)) == [0, 1], "threads %r" %
          [p["thread"] for p in per])
    for p in per:
        check(p["messages"] == 2000, "stream %d: %r messages" %
              (p["stream"], p["messages"]))
    total = sum(p["bytes"] for p in per)
    check(total == r["bytes"] == 4 * 2000 * 16384,
          "per-stream bytes %d, aggregate %d" % (total, r["bytes"]))
    check(0 < r["fairness"] <= 1.0, "fairness %r" % r["fairness"])
    server = r["cpu"]["server"]
    check(server["bytes"] == total,
          "server received %r bytes of %d" % (server["bytes"], total))
    check(len(r["cpu"]["client"]["threads"]) == 2,
          "client threads %r" % r["cpu"]["client"].get("threads"))
    check("cycles_per_kib" in server and "host" in server,
          "server cpu fields %r" % sorted(server))


def check_bidir(r, size):
    dirs = r["directions"]
    c2s, s2c = dirs["client_to_server"], dirs["server_to_client"]
    check(r["bidir"] is True, "bidir %r" % r.get("bidir"))
    check(c2s["bytes"] > 0 and s2c["bytes"] > 0,
          "bytes: client->server %r, server->client %r" %
          (c2s["bytes"], s2c["bytes"]))
    check(c2s["bytes"] + s2c["bytes"] == r["bytes"],
          "directions %d + %d != %d" % (c2s["bytes"], s2c["bytes"],
                                        r["bytes"]))
    check(c2s["bytes"] % size == 0 and s2c["bytes"] % size == 0,
          "whole messages")
    # the server side: it received the client's and sent its own
    check(r["cpu"]["server"]["bytes"] > 0, "server received nothing")


def test_bidir(binary):
    """--bidir at depth 1 and 64, 4 B and 1 MiB (above the socket buffer):
    both ways, no deadlock, within the time limit."""
    with Server(binary) as srv:
        for size, depth in ((4, 1), (4, 64), (1 << 20, 1), (1 << 20, 64)):
            for op in ("write", "read"):
                doc, secs = run_json(binary, srv.port, [
                    "--bidir", "-o", op, "-S", size, "-q", depth, "-t",
                    "0.5"], timeout=60)
                check_bidir(doc["results"][0], size)
                check(secs < 30, "took %.1f s" % secs)


def test_bidir_streams_count(binary):
    """--bidir -P 2 -C N: each direction completes 2 x N operations."""
    with Server(binary) as srv:
        doc, _ = run_json(binary, srv.port, ["--bidir", "-P", "2", "-T",
                                             "2", "-S", "4K", "-C", "3000"])
    r = doc["results"][0]
    check_bidir(r, 4096)
    for name in ("client_to_server", "server_to_client"):
        d = r["directions"][name]
        check(d["messages"] == 6000, "%s: %r messages" % (name,
                                                          d["messages"]))


def test_wait_event(binary):
    """--wait event works for every op, and the result says so."""
    with Server(binary) as srv:
        for op in OPS:
            doc, _ = run_json(binary, srv.port, ["--wait", "event", "-o", op,
                                                 "-S", "4K", "-C", "3000",
                                                 "-P", "2"])
            r = doc["results"][0]
            check(r["wait"] == "event", "wait %r" % r.get("wait"))
            check(r["messages"] == 6000, "%s: %r messages" %
                  (op, r["messages"]))
            check(r["latency_unloaded"]["count"] == 200, "unloaded count")


def test_cpu_sane(binary):
    """user + sys <= elapsed x threads on each side; host split present."""
    with Server(binary) as srv:
        doc, secs = run_json(binary, srv.port, ["-P", "2", "-T", "2", "-S",
                                                "64K", "-t", "1"])
    r = doc["results"][0]
    for side in ("client", "server"):
        c = r["cpu"][side]
        used = c["user_s"] + c["sys_s"]
        check(0 < used <= (r["seconds"] + 0.5) * 3,
              "%s: user + sys %.3f s over %.3f s" % (side, used,
                                                     r["seconds"]))
        for k in ("us_per_kib", "cycles_per_kib", "hz_source"):
            check(k in c, "%s cpu lacks %s" % (side, k))
        h = c["host"]
        for k in ("user_s", "sys_s", "irq_s", "softirq_s"):
            check(h[k] >= 0, "%s host %s %r" % (side, k, h.get(k)))
    check(r["cpu"]["client"]["us_per_kib"] > 0, "client us/KiB")


def test_text_sweep(binary):
    """The text report of a sweep: one row per point."""
    with Server(binary) as srv:
        r = client(binary, srv.port, QUICK + ["-x", "tcp", "-S", "1K,8K", "-q", "1,4",
                                              "-C", "300"])
    check(r.rc == 0, lambda: r.describe())
    rows = [ln for ln in r.out.splitlines()
            if re.match(r"\s*[18] KiB\s+[14]\s+300\s+\d", ln)]
    check(len(rows) == 4, lambda: "rows of the sweep table:\n" + r.out)


if __name__ == "__main__":
    main([
        ("sweep_product", test_sweep_product),
        ("sweep_range_default_iterations",
         test_sweep_range_default_iterations),
        ("streams_threads", test_streams_threads),
        ("bidir", test_bidir),
        ("bidir_streams_count", test_bidir_streams_count),
        ("wait_event", test_wait_event),
        ("cpu_sane", test_cpu_sane),
        ("text_sweep", test_text_sweep),
    ])
