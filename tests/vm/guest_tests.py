#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Verbs and rsocket end-to-end tests, run inside the Soft-RoCE guest (one boot
per group) by tests/vm/run_group.sh:

    tests/vm/rxe-run -- python3 tests/vm/guest_tests.py GROUP /path/to/rdmaperf

Every test runs the real binary against a real server process on rxe0
(RP_VM_ADDR) and asserts on the JSON it prints. Groups:
    verbs_ops    every operation with --verify, depth 1 and 16, time mode
    verbs_sizes  1 byte, an inline size, above the MTU, 1 MiB
    transports   rdma,rsocket,tcp in one run; rsocket alone per op
    streams      issue 8 on rdma and rsocket: a sweep over one setup (with
                 --verify), -P 4 -T 2, --bidir, --wait event for every op;
                 issue 9: -i intervals as JSON lines, with a plot
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "e2e"))
import e2elib  # noqa: E402
from e2elib import check, run  # noqa: E402
from tcp_ops import check_hist, close_to, num  # noqa: E402

ADDR = os.environ.get("RP_VM_ADDR", "10.77.0.1")
QUICK = ["--warmup", "50", "--lat-iterations", "200"]
TIMEOUT = 180
# The server sees the messages of these ops (a receive completion each);
# write, read and the atomics are one-sided: its CPU can't see them.
SERVER_COUNTS = ("send", "write_imm")


class GuestServer(e2elib.Server):
    """rdmaperf -s bound to the guest's RDMA address."""

    def start(self):
        self.port = e2elib.free_port()
        self.proc = e2elib.start(self.binary, ["-s", "-a", ADDR, "-p",
                                               self.port, "--quiet"])
        check(e2elib.wait_listening(self.port, self.proc, timeout=30),
              "server did not start")
        return self


def client_json(binary, port, args):
    r = run(binary, ["-c", "-a", ADDR, "-p", port, "--json"] + list(args),
            timeout=TIMEOUT)
    check(r.rc == 0, lambda: "client failed:\n" + r.describe())
    return r.json()


def check_result(r, transport, op, size, depth, iters=None, verify=False):
    """One result of a run: identity, counts, figures, both sides' CPU."""
    for k, v in (("transport", transport), ("op", op), ("size", size),
                 ("queue_depth", depth), ("ok", True)):
        check(r.get(k) == v, "result.%s = %r, want %r" % (k, r.get(k), v))
    n = r["messages"]
    check(n == iters if iters else n > 0, "messages %r, want %r" % (n, iters))
    check(r["bytes"] == size * n, "bytes %r != size * messages" % r["bytes"])
    t = r["throughput"]
    check(t["bits_per_second"] > 0 and
          close_to(t["bits_per_second"], r["bytes"] * 8 / r["seconds"]),
          "throughput %r inconsistent with bytes/seconds" % t)
    check_hist(r["latency"], "latency")
    check(r["latency"]["count"] == n, "latency.count != messages")
    check_hist(r["latency_unloaded"], "latency_unloaded")
    for side in ("client", "server"):
        c = r["cpu"][side]
        check(num(c["user_s"]) and num(c["sys_s"]) and c["user_s"] >= 0,
              "cpu.%s %r" % (side, c))
        check(c["verify_errors"] == 0, "cpu.%s verify errors" % side)
    check(r["cpu"]["client"]["user_s"] + r["cpu"]["client"]["sys_s"] > 0,
          "client spent no CPU")
    if transport != "rdma" or op in SERVER_COUNTS:
        srv = r["cpu"]["server"]
        check(srv["messages"] == n and srv["bytes"] == r["bytes"],
              "server counted %r messages %r bytes; client %d %d" %
              (srv["messages"], srv["bytes"], n, r["bytes"]))
    if transport == "rdma":
        info = r.get("client_transport") or {}
        check(info.get("device") == "rxe0", "device %r" % info.get("device"))


def size_of(op, size):
    return 8 if op in ("fetch_add", "cmp_swap") else size


def ops_case(binary, port, op, size, depth, iters, extra=()):
    size = size_of(op, size)
    doc = client_json(binary, port, ["-x", "rdma", "-o", op, "-S", size,
                                     "-q", depth, "-C", iters, "--verify"] +
                      QUICK + list(extra))
    check(doc["error"] is None, "error %r" % doc["error"])
    check(len(doc["results"]) == 1, "want one result")
    check_result(doc["results"][0], "rdma", op, size, depth, iters, True)


RDMA_OPS = ("write", "read", "send", "write_imm", "fetch_add", "cmp_swap")


def verbs_ops(binary):
    tests = []
    for op in RDMA_OPS:
        for depth in (1, 16):
            tests.append(("%s q%d" % (op, depth),
                          lambda b, s, o=op, d=depth:
                          ops_case(b, s.port, o, 4096, d, 2000)))

    def time_mode(b, s):
        doc = client_json(b, s.port, ["-x", "rdma", "-o", "write", "-S",
                                      "4096", "-q", "8", "-t", "1"] + QUICK)
        r = doc["results"][0]
        check_result(r, "rdma", "write", 4096, 8)
        check(0.8 < r["seconds"] < 3, "seconds %r for -t 1" % r["seconds"])
    tests.append(("time mode", time_mode))
    return tests


def verbs_sizes(binary):
    tests = []
    # 1 byte; 64 inline; 5000 above rxe's 1024..4096 MTU; 1 MiB (emulated
    # RDMA moves ~10 MB/s: few of those, and a short warm-up and ping-pong).
    big = ["--warmup", "4", "--lat-iterations", "10"]
    for op in ("write", "read", "send", "write_imm"):
        for size, depth, iters, x in ((1, 4, 2000, []), (64, 16, 2000, []),
                                      (5000, 8, 1000, []),
                                      (1 << 20, 2, 16, big)):
            tests.append(("%s %dB" % (op, size),
                          lambda b, s, o=op, z=size, d=depth, n=iters, e=x:
                          ops_case(b, s.port, o, z, d, n, e)))
    return tests


def transports(binary):
    def three(b, s):
        r = run(b, ["-c", "-a", ADDR, "-p", s.port, "-x", "rdma,rsocket,tcp",
                    "-o", "write", "-S", "4096", "-q", "8", "-C", "500",
                    "--json"] + QUICK, timeout=TIMEOUT)
        check(r.rc == 0, lambda: r.describe())
        doc = r.json()
        res = doc["results"]
        check([x["transport"] for x in res] == ["rdma", "rsocket", "tcp"],
              "results %r" % [x.get("transport") for x in res])
        for x in res:
            check_result(x, x["transport"], "write", 4096, 8, 500)
        t = run(b, ["-c", "-a", ADDR, "-p", s.port, "-x", "rdma,rsocket,tcp",
                    "-o", "write", "-S", "4096", "-q", "8", "-C", "500"] +
                QUICK, timeout=TIMEOUT)
        check(t.rc == 0, lambda: t.describe())
        for row in ("comparison (ratio to rdma)", "throughput Gb/s",
                    "unloaded p50 us", "server cpu us/KiB"):
            check(row in t.out, "table lacks %r:\n%s" % (row, t.out))
        check("x)" in t.out, "table has no ratios:\n" + t.out)

    def rsocket_op(b, s, op):
        doc = client_json(b, s.port, ["-x", "rsocket", "-o", op, "-S", "1024",
                                      "-q", "4", "-C", "300", "--verify"] +
                          QUICK)
        check_result(doc["results"][0], "rsocket", op, 1024, 4, 300, True)

    def all_here(b, s):
        doc = client_json(b, s.port, ["-x", "all", "-o", "send", "-S", "256",
                                      "-q", "4", "-C", "300"] + QUICK)
        got = [x["transport"] for x in doc["results"]]
        check(got == ["rdma", "tcp", "rsocket"], "-x all ran %r" % got)
        for x in doc["results"]:
            check_result(x, x["transport"], "send", 256, 4, 300)

    def one_fails(b, s):
        # -d names no device: rdma fails with its reason, tcp still runs
        r = run(b, ["-c", "-a", ADDR, "-p", s.port, "-x", "rdma,tcp", "-d",
                    "nosuch0", "-S", "256", "-C", "200", "--json"] + QUICK,
                timeout=TIMEOUT)
        check(r.rc == 1, lambda: "want exit 1:\n" + r.describe())
        res = r.json()["results"]
        check(len(res) == 2 and not res[0]["ok"] and res[1]["ok"],
              "results %r" % [(x["transport"], x["ok"]) for x in res])
        check("nosuch0" in res[0]["error"]["message"],
              "rdma error %r" % res[0]["error"])
        check_result(res[1], "tcp", "write", 256, 16, 200)

    tests = [("rdma,rsocket,tcp", three), ("-x all", all_here),
             ("one transport fails", one_fails)]
    for op in ("write", "read", "send"):
        tests.append(("rsocket %s" % op,
                      lambda b, s, o=op: rsocket_op(b, s, o)))
    return tests


def sweep_case(b, s, transport, op):
    """3 sizes x 2 depths over one setup; every point checked, verified."""
    doc = client_json(b, s.port, ["-x", transport, "-o", op, "-S",
                                  "64,4K,64K", "-q", "1,8", "-C", "300",
                                  "--verify"] + QUICK)
    res = doc["results"]
    want = [(z, d) for z in (64, 4096, 65536) for d in (1, 8)]
    check([(x["size"], x["queue_depth"]) for x in res] == want,
          "points %r" % [(x["size"], x["queue_depth"]) for x in res])
    for x in res:
        check_result(x, transport, op, x["size"], x["queue_depth"], 300,
                     True)


def streams_case(b, s, transport, op, n=4):
    """-P n -T 2: n streams whose bytes add up to the aggregate."""
    doc = client_json(b, s.port, ["-x", transport, "-o", op, "-S", "4096",
                                  "-q", "8", "-P", n, "-T", "2", "-C",
                                  "500"] + QUICK)
    r = doc["results"][0]
    per = r["per_stream"]
    check(len(per) == n and r["streams"] == n, "streams %r" % len(per))
    check(sum(p["bytes"] for p in per) == r["bytes"] == n * 500 * 4096,
          "bytes %r vs %r" % ([p["bytes"] for p in per], r["bytes"]))
    check(sorted(set(p["thread"] for p in per)) == [0, 1], "threads")


def rdmacm_before_fix():
    """librdmacm before rdma-core v53 (PR #1484): more than 3 rsockets in
    a process corrupt memory, so rdmaperf caps them (rsocket.c)."""
    r = run("pkg-config", ["--modversion", "librdmacm"], timeout=10)
    if r.rc != 0:
        return None
    ver = tuple(int(x) for x in r.out.strip().split(".")[:3])
    return ver < (1, 3, 53)


def rsocket_cap_case(b, s):
    """-x rsocket -P 4: refused with the library's reason where librdmacm
    predates the fix, run where it does not."""
    old = rdmacm_before_fix()
    check(old is not None, "pkg-config cannot tell librdmacm's version")
    if not old:
        streams_case(b, s, "rsocket", "write")
        return
    r = run(b, ["-c", "-a", ADDR, "-p", s.port, "-x", "rsocket", "-P", "4",
                "-C", "100", "--json"] + QUICK, timeout=TIMEOUT)
    check(r.rc == 1, lambda: "want exit 1:\n" + r.describe())
    err = r.json()["error"]["message"]
    check("PR #1484" in err and "at most 3" in err, "error %r" % err)


def bidir_case(b, s, transport, size, depth):
    """Both ends initiate at once: both directions move data, no hang."""
    # emulated RDMA moves tens of MB/s: few 1 MiB ping-pongs
    few = ["--warmup", "4", "--lat-iterations", "10"] if size > 65536 else []
    doc = client_json(b, s.port, ["-x", transport, "-o", "write", "-S", size,
                                  "-q", depth, "-t", "0.5", "--bidir"] +
                      QUICK + few)
    r = doc["results"][0]
    d = r["directions"]
    c2s, s2c = d["client_to_server"], d["server_to_client"]
    check(c2s["bytes"] > 0 and s2c["bytes"] > 0,
          "bytes both ways: %r, %r" % (c2s["bytes"], s2c["bytes"]))
    check(c2s["bytes"] + s2c["bytes"] == r["bytes"], "sum of directions")


def event_case(b, s, transport, op):
    """--wait event: every op completes, sleeping on completions."""
    size = size_of(op, 4096)
    doc = client_json(b, s.port, ["-x", transport, "-o", op, "-S", size,
                                  "-q", "8", "-C", "500", "-P", "2",
                                  "--wait", "event"] + QUICK)
    r = doc["results"][0]
    check(r["wait"] == "event", "wait %r" % r.get("wait"))
    check(r["messages"] == 1000, "messages %r" % r["messages"])
    check(r["latency_unloaded"]["count"] == 200, "unloaded count")


def interval_case(b, s, transport):
    """-i over a 2-point sweep as JSON lines, with a plot: each line valid,
    every completion in exactly one interval, a parseable SVG."""
    import json
    import tempfile
    import xml.etree.ElementTree as ET

    with tempfile.TemporaryDirectory() as d:
        svg = os.path.join(d, "sweep.svg")
        r = run(b, ["-c", "-a", ADDR, "-p", s.port, "-x", transport, "-o",
                    "write", "-S", "4K,64K", "-P", "2", "-t", "1", "-i",
                    "0.25", "--json-stream", "--plot", svg] + QUICK,
                timeout=TIMEOUT)
        check(r.rc == 0, r.describe)
        lines = [ln for ln in r.out.splitlines() if ln.strip()]
        e2elib.check_stream(lines, r.describe)
        root = ET.parse(svg).getroot()
        check(root.tag.endswith("svg"), "plot root %r" % root.tag)
    doc = json.loads(lines[-1])
    for x in doc["results"]:
        ivs = x["intervals"]
        check(3 <= len(ivs) <= 6, "%d intervals in 1 s" % len(ivs))
        check(sum(i["messages"] for i in ivs) == x["messages"],
              "interval messages %r, result %r" %
              ([i["messages"] for i in ivs], x["messages"]))
        check(all(len(i["per_stream"]) == 2 for i in ivs), "per_stream")


def streams(binary):
    tests = []
    for t, ops in (("rdma", ("write", "send", "read")),
                   ("rsocket", ("write", "read"))):
        for op in ops:
            tests.append(("%s sweep %s" % (t, op),
                          lambda b, s, t=t, o=op: sweep_case(b, s, t, o)))
        # rsockets: at most 3 per process with Debian 12's librdmacm
        n = 4 if t == "rdma" else 3
        tests.append(("%s -P %d -T 2" % (t, n),
                      lambda b, s, t=t, n=n: streams_case(b, s, t, "write",
                                                          n)))
        for size, depth in ((4, 1), (4, 64), (1 << 20, 1), (1 << 20, 64)):
            tests.append(("%s bidir %dB q%d" % (t, size, depth),
                          lambda b, s, t=t, z=size, d=depth:
                          bidir_case(b, s, t, z, d)))
    tests.append(("rsocket -P 4: the library's cap", rsocket_cap_case))
    for t in ("rdma", "rsocket"):
        tests.append(("%s -i --json-stream --plot" % t,
                      lambda b, s, t=t: interval_case(b, s, t)))
    for op in RDMA_OPS:
        tests.append(("rdma event %s" % op,
                      lambda b, s, o=op: event_case(b, s, "rdma", o)))
    for op in ("write", "read", "send"):
        tests.append(("rsocket event %s" % op,
                      lambda b, s, o=op: event_case(b, s, "rsocket", o)))
    return tests


GROUPS = {"verbs_ops": verbs_ops, "verbs_sizes": verbs_sizes,
          "transports": transports, "streams": streams}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in GROUPS:
        sys.stderr.write("usage: guest_tests.py {%s} RDMAPERF\n" %
                         "|".join(GROUPS))
        sys.exit(2)
    binary = os.path.abspath(sys.argv[2])
    os.environ.setdefault("RP_VM_ADDR", ADDR)
    srv = GuestServer(binary)
    srv.start()
    try:
        tests = [(name, lambda b, f=fn: f(b, srv))
                 for name, fn in GROUPS[sys.argv[1]](binary)]
        sys.argv = [sys.argv[0], binary]
        e2elib.main(tests)
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
