#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
End to end over TCP: every operation against a real server process, the JSON
document checked field by field (DESIGN.md "Outputs", src/report/json/doc.c),
plus --verify, time mode, extreme sizes, the phase switches, the text report
and --loopback.

    python3 tests/e2e/tcp_ops.py /path/to/rdmaperf
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import QUICK, Server, check, client, client_json, main, run  # noqa: E402

OPS = ("write", "read", "send")
LAT_ITERS = 200  # as in QUICK
WARMUP = 100
LAT_KEYS = ("unit", "count", "min", "mean", "p50", "p90", "p99", "p99_9",
            "p99_99", "max", "stddev")


def close_to(a, b, rel=0.01):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def each_op(fn, ops=OPS):
    """fn(op) for every op, all of them run; one failure lists them all."""
    errors = []
    for op in ops:
        try:
            fn(op)
        except AssertionError as e:
            name = op if isinstance(op, str) else "%s %s" % (op[0], op[2])
            errors.append("%s: %s" % (name, e))
    check(not errors, lambda: "\n".join(errors))


def check_document(doc, port, op, size, depth):
    """Top level and the one result's identity; returns the result."""
    check(doc.get("schema") == "rdmaperf/1", "schema %r" % doc.get("schema"))
    check(isinstance(doc.get("version"), str) and doc["version"],
          "version %r" % doc.get("version"))
    check("error" in doc and doc["error"] is None,
          lambda: "top-level error: %r" % doc.get("error"))
    cfg = doc.get("config")
    check(isinstance(cfg, dict), "config %r" % cfg)
    want = {"transport": "tcp", "op": op, "size": size, "queue_depth": depth,
            "server": "127.0.0.1"}
    if port is not None:
        want["port"] = port
    for k, v in want.items():
        check(cfg.get(k) == v, "config.%s = %r, want %r" % (k, cfg.get(k), v))
    hosts = doc.get("hosts")
    check(isinstance(hosts, dict), "hosts %r" % hosts)
    for side in ("client", "server"):
        h = hosts.get(side)
        check(isinstance(h, dict), "hosts.%s is %r" % (side, h))
        check(isinstance(h.get("hostname"), str) and h["hostname"],
              "hosts.%s.hostname %r" % (side, h.get("hostname")))
    res = doc.get("results")
    check(isinstance(res, list) and len(res) == 1,
          lambda: "want exactly one result, got %r" % res)
    r = res[0]
    for k, v in (("transport", "tcp"), ("op", op), ("size", size),
                 ("queue_depth", depth), ("ok", True), ("streams", 1)):
        check(r.get(k) == v, "result.%s = %r, want %r" % (k, r.get(k), v))
    check("error" in r and r["error"] is None,
          lambda: "result error: %r" % r.get("error"))
    return r


def check_hist(lat, name):
    check(isinstance(lat, dict), "%s is %r" % (name, lat))
    for k in LAT_KEYS:
        check(k in lat, "%s lacks %s: %r" % (name, k, lat))
    check(lat["unit"] == "us", "%s.unit %r" % (name, lat["unit"]))
    check(num(lat["count"]) and lat["count"] > 0, "%s.count %r" %
          (name, lat["count"]))
    order = ("min", "p50", "p90", "p99", "p99_9", "p99_99", "max")
    vals = [lat[k] for k in order]
    check(all(num(v) and v > 0 for v in vals),
          "%s: a non-positive figure: %r" % (name, lat))
    check(all(a <= b for a, b in zip(vals, vals[1:])),
          lambda: "%s: min <= p50 <= ... <= max broken: %s" %
          (name, ", ".join("%s %s" % (k, lat[k]) for k in order)))
    eps = 1e-6  # us; mean is a double, min and max whole nanoseconds
    check(lat["min"] - eps <= lat["mean"] <= lat["max"] + eps,
          "%s: mean %s outside [min %s, max %s]" %
          (name, lat["mean"], lat["min"], lat["max"]))
    check(num(lat["stddev"]) and lat["stddev"] >= 0,
          "%s.stddev %r" % (name, lat["stddev"]))


def check_unloaded(r, op, lat_iters=LAT_ITERS):
    u = r.get("latency_unloaded")
    check_hist(u, "latency_unloaded")
    check(u["count"] == lat_iters, "latency_unloaded.count %r, want %d" %
          (u["count"], lat_iters))
    # write and send ping-pong: half the round trip; read: the whole op.
    halved = op != "read"
    method = "half round trip" if halved else "whole operation"
    check(u.get("method") == method, "latency_unloaded.method %r, want %r" %
          (u.get("method"), method))
    check(num(u.get("rtt_p50")) and num(u.get("rtt_p99")),
          "rtt_p50/rtt_p99 missing: %r" % u)
    want = u["rtt_p50"] / 2 if halved else u["rtt_p50"]
    check(close_to(u["p50"], want, 1e-9),
          "latency_unloaded.p50 %s is not %s of rtt_p50 %s" %
          (u["p50"], "half" if halved else "all", u["rtt_p50"]))


def check_cpu_side(side, name, bytes_, messages):
    check(isinstance(side, dict), "cpu.%s is %r" % (name, side))
    u, s = side.get("user_s"), side.get("sys_s")
    check(num(u) and u >= 0 and num(s) and s >= 0,
          "cpu.%s user_s %r sys_s %r" % (name, u, s))
    check(u + s > 0, "cpu.%s: no CPU time at all (user %r sys %r)" %
          (name, u, s))
    k = side.get("us_per_kib")
    check(num(k) and k > 0, "cpu.%s.us_per_kib %r" % (name, k))
    check(close_to(k, (u + s) * 1e6 / (bytes_ / 1024.0)),
          "cpu.%s.us_per_kib %s is not (user+sys) per KiB moved (%s)" %
          (name, k, (u + s) * 1e6 / (bytes_ / 1024.0)))
    # The server counts what it received (write, send) or sent (read).
    check(side.get("bytes") == bytes_ and side.get("messages") == messages,
          "cpu.%s counted %r messages, %r bytes; the client %d, %d" %
          (name, side.get("messages"), side.get("bytes"), messages, bytes_))
    check(side.get("verify_errors") == 0, "cpu.%s.verify_errors %r" %
          (name, side.get("verify_errors")))


def check_bandwidth(r, size, messages=None):
    """Throughput, latency under load and CPU; returns the message count."""
    n = r.get("messages")
    if messages is None:
        check(num(n) and n > 0, "messages %r" % n)
    else:
        check(n == messages, "messages %r, want %d" % (n, messages))
    check(r.get("bytes") == size * n, "bytes %r, want size * messages = %d" %
          (r.get("bytes"), size * n))
    check(r.get("warmup_messages") == WARMUP, "warmup_messages %r, want %d" %
          (r.get("warmup_messages"), WARMUP))
    secs = r.get("seconds")
    check(num(secs) and secs > 0, "seconds %r" % secs)
    t = r.get("throughput")
    check(isinstance(t, dict), "throughput is %r" % t)
    byts = r["bytes"]
    for k, want in (("bits_per_second", byts * 8 / secs),
                    ("mib_per_second", byts / 1048576.0 / secs),
                    ("messages_per_second", n / secs)):
        check(num(t.get(k)) and t[k] > 0, "throughput.%s %r" % (k, t.get(k)))
        check(close_to(t[k], want),
              "throughput.%s %s, but bytes/messages over seconds give %s" %
              (k, t[k], want))
    check_hist(r.get("latency"), "latency")
    check(r["latency"]["count"] == n, "latency.count %r, want messages %d" %
          (r["latency"]["count"], n))
    cpu = r.get("cpu")
    check(isinstance(cpu, dict), "cpu is %r" % cpu)
    check_cpu_side(cpu.get("client"), "client", byts, n)
    check_cpu_side(cpu.get("server"), "server", byts, n)
    return n


def test_op(op):
    def t(binary):
        with Server(binary) as srv:
            doc = client_json(binary, srv.port,
                              ["-x", "tcp", "-o", op, "-S", "4096", "-q", "8",
                               "-C", "2000"] + QUICK)
            r = check_document(doc, srv.port, op, 4096, 8)
            check(doc["config"].get("iterations") == 2000,
                  "config.iterations %r" % doc["config"].get("iterations"))
            check_bandwidth(r, 4096, 2000)
            check_unloaded(r, op)
    return t


def test_verify(binary):
    with Server(binary) as srv:
        def one(op):
            doc = client_json(binary, srv.port,
                              ["-x", "tcp", "-o", op, "-S", "4096", "-q", "8",
                               "-C", "2000", "--verify"] + QUICK)
            r = check_document(doc, srv.port, op, 4096, 8)
            check(doc["config"].get("verify") is True, "config.verify %r" %
                  doc["config"].get("verify"))
            check_bandwidth(r, 4096, 2000)
            check_unloaded(r, op)
        each_op(one)


def test_time_mode(binary):
    with Server(binary) as srv:
        def one(op):
            doc = client_json(binary, srv.port,
                              ["-x", "tcp", "-o", op, "-S", "4096", "-q", "8",
                               "-t", "0.5"] + QUICK)
            r = check_document(doc, srv.port, op, 4096, 8)
            cfg = doc["config"]
            check(cfg.get("iterations") == 0 and
                  cfg.get("duration_s") == 0.5,
                  "time mode config: iterations %r duration_s %r" %
                  (cfg.get("iterations"), cfg.get("duration_s")))
            check(0.4 <= r["seconds"] <= 2.0,
                  "-t 0.5 ran the phase for %s s" % r["seconds"])
            check_bandwidth(r, 4096)
            check_unloaded(r, op)
        each_op(one)


def test_sizes(binary):
    with Server(binary) as srv:
        def one(op_size):
            op, size, text = op_size
            doc = client_json(binary, srv.port,
                              ["-x", "tcp", "-o", op, "-S", text, "-q", "2",
                               "-C", "50"] + QUICK)
            r = check_document(doc, srv.port, op, size, 2)
            check_bandwidth(r, size, 50)
            check_unloaded(r, op)
        each_op(one, [(op, size, text) for size, text in
                      ((1, "1"), (1 << 20, "1M")) for op in OPS])


def test_no_latency(binary):
    with Server(binary) as srv:
        def one(op):
            doc = client_json(binary, srv.port,
                              ["-x", "tcp", "-o", op, "-S", "4096", "-q", "8",
                               "-C", "2000", "--no-latency"] + QUICK)
            r = check_document(doc, srv.port, op, 4096, 8)
            check(doc["config"].get("latency") is False,
                  "config.latency %r" % doc["config"].get("latency"))
            check("latency_unloaded" in r and r["latency_unloaded"] is None,
                  "--no-latency: latency_unloaded is %r" %
                  r.get("latency_unloaded"))
            check_bandwidth(r, 4096, 2000)
        each_op(one)


def test_no_bandwidth(binary):
    with Server(binary) as srv:
        def one(op):
            doc = client_json(binary, srv.port,
                              ["-x", "tcp", "-o", op, "-S", "4096", "-q", "8",
                               "--no-bandwidth"] + QUICK)
            r = check_document(doc, srv.port, op, 4096, 8)
            check(doc["config"].get("bandwidth") is False,
                  "config.bandwidth %r" % doc["config"].get("bandwidth"))
            for k in ("throughput", "latency", "cpu"):
                check(k in r and r[k] is None, "--no-bandwidth: %s is %r" %
                      (k, r.get(k)))
            check(r.get("messages") == 0 and r.get("bytes") == 0,
                  "--no-bandwidth: messages %r bytes %r" %
                  (r.get("messages"), r.get("bytes")))
            check_unloaded(r, op)
        each_op(one)


def test_text_output(binary):
    with Server(binary) as srv:
        res = client(binary, srv.port,
                     ["-x", "tcp", "-o", "write", "-S", "4096", "-q", "8",
                      "-C", "2000", "--verify"] + QUICK)
        check(res.rc == 0, lambda: "text run failed:\n" + res.describe())
        check(res.err == "", "text run wrote to stderr: %r" % res.err)
        check(not res.out.lstrip().startswith("{"),
              "no --json, yet the output is JSON")
        lines = [ln.strip() for ln in res.out.splitlines()]
        check(any("tcp write" in ln and "4 KiB" in ln and "queue depth 8" in ln
                  and "2000 operations" in ln for ln in lines),
              lambda: "no header line naming the test:\n" + res.out)
        check(any("127.0.0.1 port %d" % srv.port in ln and "verified" in ln
                  for ln in lines),
              lambda: "no server line (address, port, verified):\n" + res.out)
        for label in ("throughput", "under load", "unloaded", "cpu client",
                      "cpu server"):
            pat = re.compile(r"^%s\s+(user )?[0-9]" % re.escape(label))
            found = [ln for ln in lines if pat.match(ln)]
            check(len(found) == 1,
                  lambda: "want one %r line with figures:\n%s" %
                  (label, res.out))
        check(not any("FAILED" in ln for ln in lines),
              lambda: "the report says FAILED:\n" + res.out)
        tp = [ln for ln in lines if ln.startswith("throughput")][0]
        check("Gb/s" in tp and "MiB/s" in tp and "2000 messages" in tp,
              "throughput line: %r" % tp)


def test_loopback(binary):
    res = run(binary, ["--loopback", "-x", "tcp", "-C", "1000", "--json"] +
              QUICK)
    check(res.rc == 0, lambda: "--loopback failed:\n" + res.describe())
    doc = res.json()
    r = check_document(doc, None, "write", 65536, 16)
    check(isinstance(doc["config"].get("port"), int) and
          doc["config"]["port"] > 0,
          "loopback config.port %r" % doc["config"].get("port"))
    check_bandwidth(r, 65536, 1000)
    check_unloaded(r, "write")


TESTS = [("op_" + op, test_op(op)) for op in OPS] + [
    ("verify", test_verify),
    ("time_mode", test_time_mode),
    ("sizes_1B_1M", test_sizes),
    ("no_latency", test_no_latency),
    ("no_bandwidth", test_no_bandwidth),
    ("text_output", test_text_output),
    ("loopback", test_loopback),
]

if __name__ == "__main__":
    main(TESTS)
