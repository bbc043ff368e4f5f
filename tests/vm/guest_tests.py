#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Verbs and rsocket end-to-end tests, run inside the Soft-RoCE guest by
tests/vm/run_group.sh, several groups in one boot:

    tests/vm/rxe-run -- python3 tests/vm/guest_tests.py GROUP[,GROUP...] \
        /path/to/rdmaperf [/path/to/verbs_smoke]

Every test runs the real binary against a real server process on rxe0
(RP_VM_ADDR) and asserts on the JSON it prints. Groups:
    smoke        tests/vm/verbs_smoke.c: the rdma transport through its ops
                 table alone, every op, size and depth
    verbs_ops    every operation with --verify, depth 1 and 16, time mode;
                 --mem (guest_mem.py); --qp uc (guest_qp.py); --srq -P 8
                 against own queues (guest_srq.py)
    verbs_sizes  1 byte, an inline size, above the MTU, 1 MiB
    transports   rdma,rsocket,tcp in one run; rsocket alone per op; ofi:verbs
                 (guest_ofi.py)
    streams      issue 8 on rdma and rsocket: a sweep over one setup (with
                 --verify), -P 4 -T 2, --bidir, --wait event for every op;
                 issue 9: -i intervals as JSON lines, with a plot; --srq's
                 limit event and write_imm (guest_srq.py); --qp uc --bidir and
                 --qp ud -P 2 -T 2, both waits
    robust       issue 10 on verbs: the server's RDMA resources, descriptors
                 and memory after a hundred tests; a client SIGKILLed or
                 SIGSTOPped mid-test, the server SIGSTOPped mid ping-pong,
                 SIGINT to the server, --max-memory; --qp ud among stray
                 datagrams (tests/vm/ud_stray.c)
    siw          Soft-iWARP (tests/vm/siw_tests.py)
    nfs          -x file: on NFS mounted over RDMA and over TCP, beside
                 -x rdma, in one table (tests/vm/nfs_tests.py)
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "e2e"))
import e2elib  # noqa: E402
from e2elib import TestFailure, check, log, run  # noqa: E402
from tcp_ops import check_hist, close_to, num  # noqa: E402
from faults_wire import fd_count, fd_list, status_kib  # noqa: E402
from guest_mem import mem_cases  # noqa: E402
from guest_ofi import ofi_cases  # noqa: E402
from guest_qp import qp_cases  # noqa: E402
from guest_srq import srq_cases  # noqa: E402

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


# A server answers "busy" while its previous session is still ending. On
# this guest's Soft-RoCE an rsocket's close could hold it for 50 s (after
# 1 in 10 to 14 rsocket read sweeps: rclose's ibv_dereg_mr waiting in
# rxe's __rxe_cleanup for an MR reference). The server now closes an
# rsocket stream only after the client's close reached it; rsocket.c's
# close_after_eof_ms says why, and 40 such sweeps in a row no longer held
# it. A client still waits out a busy server, up to this long, and the
# log says so (such a wait is the device's, not the test's subject).
BUSY_WAIT_S = 90


def client_json(binary, port, args):
    t0 = time.monotonic()
    while True:
        r = run(binary, ["-c", "-a", ADDR, "-p", port, "--json"] +
                list(args), timeout=TIMEOUT)
        busy = r.rc == 1 and '"code":\t"busy"' in r.out
        if not busy or time.monotonic() - t0 > BUSY_WAIT_S:
            break
        time.sleep(0.5)
    if time.monotonic() - t0 > r.seconds + 0.5:
        log("  (the server answered busy for %.1f s: its previous session "
            "was still ending)" % (time.monotonic() - t0 - r.seconds))
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
    # one-sided ops on rdma and ofi: the server's CPU sees none arrive
    rdma_like = transport == "rdma" or transport.startswith("ofi")
    if not rdma_like or op in SERVER_COUNTS:
        srv = r["cpu"]["server"]
        check(srv["messages"] == n and srv["bytes"] == r["bytes"],
              "server counted %r messages %r bytes; client %d %d" %
              (srv["messages"], srv["bytes"], n, r["bytes"]))
    if transport == "rdma":
        info = r.get("client_transport") or {}
        dev = os.environ.get("RP_VM_DEV", "rxe0")
        check(info.get("device") == dev, "device %r, not %s" %
              (info.get("device"), dev))


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
    # --signal/--post-list: one signaled completion per 32, chains of 8;
    # every operation still completes, once, verified, on both ends
    for op in RDMA_OPS:
        tests.append(("%s --signal 32 --post-list 8" % op,
                      lambda b, s, o=op:
                      ops_case(b, s.port, o, 13, 64, 2000,
                               ["--signal", "32", "--post-list", "8"])))
    tests.append(("--signal, timed", signal_timed))
    tests.extend(mem_cases())
    tests.extend(qp_cases(ADDR, client_json, check_result, QUICK, TIMEOUT))
    tests.append(srq_cases(client_json, check_result, QUICK, log)[0])
    if not os.environ.get("ASAN_OPTIONS"):
        # the open loop's figures on verbs; the sanitizer suite runs the
        # same engine code over TCP (e2e.load), and CI must stay short
        tests.append(("--rate achieved", rate_case))
        tests.append(("--rate saturated", saturated_case))
        tests.append(("--load-curve 4", load_curve_case))
    return tests


def signal_timed(b, s):
    """A timed phase ends on a signaled operation: no hang, none lost."""
    doc = client_json(b, s.port, ["-x", "rdma", "-o", "send", "-S", "64",
                                  "-q", "128", "-t", "0.5", "--signal", "64",
                                  "--verify"] + QUICK)
    check_result(doc["results"][0], "rdma", "send", 64, 128, verify=True)


def rate_case(b, s):
    """2000 ops/s is far under what Soft-RoCE does: achieved within 2%."""
    doc = client_json(b, s.port, ["-x", "rdma", "-o", "write", "-S", "4096",
                                  "-q", "16", "--rate", "2k", "-t", "2"] +
                      QUICK)
    r = doc["results"][0]
    check_result(r, "rdma", "write", 4096, 16)
    rt = r["rate"]
    check(abs(rt["achieved_ops_per_second"] - 2000) <= 40 and
          not rt["saturated"], "rate %r" % rt)
    check(rt["latency_corrected"]["count"] == r["messages"],
          "corrected count %r" % rt["latency_corrected"])


def saturated_case(b, s):
    doc = client_json(b, s.port, ["-x", "rdma", "-o", "write", "-S", "64K",
                                  "-q", "4", "--rate", "100G", "-t", "1"] +
                      QUICK)
    rt = doc["results"][0]["rate"]
    check(rt["saturated"] and rt["unsent"] > 0, "not saturated: %r" % rt)


def load_curve_case(b, s):
    doc = client_json(b, s.port, ["-x", "rdma", "-o", "write", "-S", "4096",
                                  "-q", "16", "--load-curve", "4", "-C",
                                  "1000", "--no-latency"] + QUICK)
    res = doc["results"]
    check(len(res) == 5 and all(r["ok"] for r in res),
          "%d results: %r" % (len(res), [r["error"] for r in res]))
    offered = [r["rate"]["offered_ops_per_second"] for r in res[1:]]
    check(offered == sorted(offered) and len(set(offered)) == 4,
          "offered rates %r" % offered)


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


def clock_line(b, saved, doc):
    """The client's clock has its cost in the JSON (a system call reading
    the HPET in this guest, microseconds; a counter, tens of ns), and the
    text of the same result says it under the latency figures exactly
    when it is RP_CLOCK_SLOW_NS (200) or more."""
    ns = doc["hosts"]["client"]["clock"]["read_ns"]
    check(num(ns) and 0 < ns < 1e6, "clock.read_ns %r" % ns)
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        f.write(saved)
        f.flush()
        t = run(b, ["--report", f.name], timeout=TIMEOUT)
    check(t.rc == 0, lambda: t.describe())
    said = "us a read on the client" in t.out
    check(said == (ns >= 200), "read_ns %r, the clock line %s:\n%s" %
          (ns, "said" if said else "not said", t.out))


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
        clock_line(b, r.out, doc)
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
    tests.extend(ofi_cases(binary, client_json, check_result, QUICK))
    # The sanitizer suite runs the matrix's code under e2e.matrix on the
    # host and the rdma transport's in every other case here; three
    # sanitized ranks, their servers and Open MPI did not fit the guest
    # (a rank killed, the job's exit 137), so the first suite alone runs it.
    if not os.environ.get("ASAN_OPTIONS"):
        tests.append(("--matrix, 3 ranks, rdma,tcp",
                      lambda b, s: matrix_case(b)))
    for op in ("write", "read", "send"):
        tests.append(("rsocket %s" % op,
                      lambda b, s, o=op: rsocket_op(b, s, o)))
    return tests


def matrix_case(b):
    """mpirun -np 3 --matrix -x rdma,tcp on rxe0: ranks 0 and 1 as they
    are, rank 2 told -d nosuch0 (an impossible device): the pairs of 0 and
    1 pass on both transports, rank 2's four fail on rdma naming the
    device and pass on tcp; the document validates against its schema."""
    import matrix
    test = ["-x", "rdma,tcp", "-S", "4096", "-q", "8", "-C", "300",
            "--wait", "event", "--quiet", "--json"] + QUICK
    r = matrix.mpirun(b, (2, test), (1, test + ["-d", "nosuch0"]),
                      timeout=TIMEOUT)
    check(r.rc == 1, lambda: "want exit 1 (rank 2's rdma fails):\n" +
          r.describe())
    doc = matrix.matrix_doc(r)
    m = doc["matrix"]
    check([x["address"] for x in m["ranks"]] == [ADDR] * 3,
          "ranks listen on %r, not the rxe device's %s" %
          ([x["address"] for x in m["ranks"]], ADDR))
    check(len(m["cells"]) == 6, "%d cells" % len(m["cells"]))
    for c in m["cells"]:
        res = c["document"]["results"]
        check([x["transport"] for x in res] == ["rdma", "tcp"],
              "cell %r" % [x["transport"] for x in res])
        bad = 2 in (c["client"], c["server"])
        check(res[0]["ok"] != bad and c["ok"] != bad,
              "cell %d -> %d: rdma ok %r" % (c["client"], c["server"],
                                             res[0]["ok"]))
        if bad:
            check("nosuch0" in c["error"], "error %r" % c["error"])
        for x in res[int(bad):]:
            check_result(x, x["transport"], "write", 4096, 8, 300)
    rdma, tcp = m["tables"]
    check(len(rdma["failed"]) == 4 and not tcp["failed"],
          "failed pairs: rdma %d, tcp %d" % (len(rdma["failed"]),
                                             len(tcp["failed"])))
    check(rdma["throughput_gbps"][0][1] and rdma["throughput_gbps"][1][0],
          "rdma 0 <-> 1: %r" % rdma["throughput_gbps"])


def sweep_case(b, s, transport, op):
    """3 sizes x 2 depths over one setup; every point checked, verified."""
    # the sanitizer suite runs every point with fewer messages: the counts
    # are the first suite's to prove, and instrumented --verify is slow
    n, quick = (100, ["--warmup", "20", "--lat-iterations", "50"]) \
        if os.environ.get("ASAN_OPTIONS") else (300, QUICK)
    doc = client_json(b, s.port, ["-x", transport, "-o", op, "-S",
                                  "64,4K,64K", "-q", "1,8", "-C", n,
                                  "--verify"] + quick)
    res = doc["results"]
    want = [(z, d) for z in (64, 4096, 65536) for d in (1, 8)]
    check([(x["size"], x["queue_depth"]) for x in res] == want,
          "points %r" % [(x["size"], x["queue_depth"]) for x in res])
    for x in res:
        check_result(x, transport, op, x["size"], x["queue_depth"], n, True)


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


def rsocket_rate_case(b, s):
    """--wait event at an offered rate: the client sleeps in rpoll() for
    each intended start with nothing in flight, and those sleeps run out.
    librdmacm v44's rpoll() counted such a timeout as a poller that never
    left; the next wake-up then made every later sleep spin inside the
    library until an event came, which with nothing in flight was never
    (src/xport/sock/rsocket.c): the run hung."""
    doc = client_json(b, s.port, ["-x", "rsocket", "-o", "write", "-S",
                                  "64", "-q", "4", "--rate", "500", "-t",
                                  "2", "--wait", "event"] + QUICK)
    r = doc["results"][0]
    check_result(r, "rsocket", "write", 64, 4)
    rt = r["rate"]
    check(abs(rt["achieved_ops_per_second"] - 500) <= 25 and
          not rt["saturated"], "rate %r" % rt)


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
    # The sanitizer suite leaves out --bidir at 1 MiB x 64 (the bidir code
    # runs at 4 B and at 1 MiB x 1) and the -i cases: intervals, JSON lines
    # and plots are the engine's and the reporters', which e2e.live and
    # e2e.plots run under the sanitizers; the data path is the other cases'.
    sanitized = bool(os.environ.get("ASAN_OPTIONS"))
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
            if sanitized and size > 4 and depth > 1:
                continue
            tests.append(("%s bidir %dB q%d" % (t, size, depth),
                          lambda b, s, t=t, z=size, d=depth:
                          bidir_case(b, s, t, z, d)))
    tests.append(("rsocket -P 4: the library's cap", rsocket_cap_case))
    for t in () if sanitized else ("rdma", "rsocket"):
        tests.append(("%s -i --json-stream --plot" % t,
                      lambda b, s, t=t: interval_case(b, s, t)))
    for op in RDMA_OPS:
        tests.append(("rdma event %s" % op,
                      lambda b, s, o=op: event_case(b, s, "rdma", o)))
    for op in ("write", "read", "send"):
        tests.append(("rsocket event %s" % op,
                      lambda b, s, o=op: event_case(b, s, "rsocket", o)))
    tests.append(("rsocket event --rate 500", rsocket_rate_case))
    # UC (guest_qp.py in verbs_ops) here too, so that the sanitizer suite
    # runs its id (rdma_create_ep), credits and bidir: both ends initiate
    for op in ("send", "write"):
        tests.append(("rdma --qp uc %s -P 2 --bidir --wait event" % op,
                      lambda b, s, o=op: uc_bidir_case(b, s, o)))
    # UD (guest_qp.py in verbs_ops) too: its address handles, GRHs and
    # lost-ping path across streams and threads, under the sanitizers
    for wait in ("busy", "event"):
        tests.append(("rdma --qp ud send -P 2 -T 2 --wait %s" % wait,
                      lambda b, s, w=wait: ud_streams_case(b, s, w)))
    # --srq's limit event and write_imm (guest_srq.py) here, so that the
    # sanitizer suite runs the shared queue across streams and threads
    tests.extend(srq_cases(client_json, check_result, QUICK, log)[1:])
    # --sl/--flow-label (guest_qp.py in verbs_ops) too: queue pairs both
    # ends drive themselves, across streams, both directions, under ASan
    tests.append(("rdma --sl --flow-label -P 2 --bidir --wait event",
                  path_streams_case))
    return tests


def path_streams_case(b, s):
    doc = client_json(b, s.port, ["-x", "rdma", "-o", "write", "-S", "4096",
                                  "-q", "8", "-C", "300", "-P", "2",
                                  "--bidir", "--wait", "event", "--verify",
                                  "--sl", "1", "--flow-label", "0x54321",
                                  "--mtu", "512"] +
                      QUICK)
    r = doc["results"][0]
    d = r["directions"]
    held = [(p.get("qp_path", {}).get("flow_label"), p.get("mtu"))
            for x in ("client", "server") for p in r["%s_streams" % x]]
    check(r["ok"] and d["client_to_server"]["messages"] == 600 and
          d["server_to_client"]["messages"] == 600 and
          held == [(0x54321, 512)] * 8,  # 2 streams a direction, each end
          "--sl --flow-label bidir: ok %r, directions %r, held %r" %
          (r["ok"], d, held))


def ud_streams_case(b, s, wait):
    doc = client_json(b, s.port, ["-x", "rdma", "--qp", "ud", "-o", "send",
                                  "-S", "1024", "-q", "8", "-C", "300", "-P",
                                  "2", "-T", "2", "--wait", wait,
                                  "--verify"] + QUICK)
    r = doc["results"][0]
    loss = r.get("loss") or {}
    check(r["ok"] and r.get("qp") == "ud" and loss.get("sent") == 600 and
          0 < loss["arrived"] == r["cpu"]["server"]["messages"] and
          loss["lost"] == 600 - loss["arrived"] and
          r["cpu"]["server"]["verify_errors"] == 0,
          "ud -P 2 -T 2: %r" % {k: r.get(k) for k in ("ok", "qp", "loss",
                                                      "cpu")})


def uc_bidir_case(b, s, op):
    doc = client_json(b, s.port, ["-x", "rdma", "--qp", "uc", "-o", op,
                                  "-S", "4096", "-q", "8", "-C", "300", "-P",
                                  "2", "--bidir", "--wait", "event",
                                  "--verify"] + QUICK)
    r = doc["results"][0]
    d = r["directions"]
    check(r["ok"] and r.get("qp") == "uc" and
          d["client_to_server"]["messages"] == 600 and
          d["server_to_client"]["messages"] == 600,
          "uc bidir: ok %r, qp %r, directions %r" % (r["ok"], r.get("qp"), d))


# ---- robust: issue 10 on verbs ------------------------------------------
#
# One server's RDMA objects, descriptors and memory over many short tests;
# then the faults a verbs test meets, each followed by a normal verbs test
# on the same server: a client SIGKILLed or SIGSTOPped mid-test, the server
# SIGSTOPped mid ping-pong (the client's --stall-timeout ends that), SIGINT
# to the server, a spec over --max-memory. The bounds are the server's
# (src/run/run.h, src/run/server_phase.c): a test with no sign of life for
# --stall-timeout (RP_STALL_TIMEOUT_NS unless set) ends, a timed phase ends
# by its duration plus that,
# every test by --max-time; each bound with PHASE_SLACK_NS more. One-sided
# operations (write, read, the atomics) are invisible to the responder: the
# server cannot see them stall, so only --max-time ends them.

STALL_S = 30        # RP_STALL_TIMEOUT_NS, the default --stall-timeout
SLACK_S = 10        # PHASE_SLACK_NS: past a bound's own
RES_TESTS = 100     # the count of short tests
RES_MIN_TESTS = 40  # fewer would prove little
RES_BUDGET_S = 350  # guest time for them; the count is cut to fit
if os.environ.get("ASAN_OPTIONS"):
    # The sanitizer build (scripts/test.sh's second suite) runs the same
    # group for leaks and undefined behaviour in every path; the count that
    # proves release was run by the first suite, and CI must stay short.
    RES_TESTS, RES_MIN_TESTS, RES_BUDGET_S = 25, 20, 120
# Each short test's document is read for its results; every seventh is
# also checked against the schema (0.13 s of the guest's CPU each). The
# plan's options repeat every 30 tests, and 7 is prime to 30: over 100
# tests each operation, -P 2 and --verify gets its documents checked.
RES_SCHEMA_EVERY = 7
RSS_GROWTH_KIB = 16 * 1024
SIGINT_BOUND_S = 2.5  # the client told of the shutdown (issue: ~2 s)
STOP_HOLD_S = 23    # how long a client stays SIGSTOPped
STOP_STALL_S = 6    # the send server's --stall-timeout in stopped_case
STOP_MAX_TIME_S = 5  # the write server's --max-time in stopped_case
PING_STALL_S = 3    # the client's --stall-timeout in server_stopped_case
# past it: the client's 300 ms look for the server's word, its 2 s wait
# for the server to close after its ERROR, and the emulated guest
PING_AFTER_S = 6
COUNTED = ("pd", "cq", "qp", "cm_id", "mr")
FEW = ["--warmup", "10", "--lat-iterations", "10"]
# 32 messages of the default 64 KiB at depth 16: each test still
# registers 1 MiB a side (a leak of that would cross the 16 MiB RSS bound
# within 17 tests), in a fraction of the time -C 200 took (1.6 s a test)
SHORT = ["-C", "32"] + FEW
NORMAL = ["-x", "rdma", "-o", "write", "-S", "4096", "-q", "8", "-C", "500",
          "--verify"] + FEW


class RobustServer(GuestServer):
    """rdmaperf -s on the guest's address with its @extra options, in @env
    (None: this one); stderr (without --quiet, the reason it gives for
    ending a test) kept."""

    def __init__(self, binary, extra=(), env=None):
        super().__init__(binary, extra)
        self.env = env

    def start(self):
        self.port = e2elib.free_port()
        self.errfile = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [self.binary, "-s", "-a", ADDR, "-p", str(self.port)] +
            self.extra, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self.errfile, env=self.env)
        check(e2elib.wait_listening(self.port, self.proc, timeout=30),
              lambda: "the server (%s) did not start listening: %s" %
              (" ".join(self.extra), self.stderr()))
        return self

    def log_since(self, mark):
        """What the server logged after @mark (a length of stderr()), less
        the lines that only say a test began or that it listens."""
        lines = [x.strip() for x in self.stderr()[mark:].splitlines()]
        return "; ".join(x for x in lines if x and ": test: " not in x and
                         "listening on" not in x)[-400:] or "(nothing)"


def session_open(port):
    """True while the server holds a control connection on @port: one
    established, or closed by the client but not yet by the server."""
    return any(e2elib.proc_port(f) == port and
               f[3] in ("01", "08")  # ESTABLISHED, CLOSE_WAIT
               for _, f in e2elib.proc_tcp_rows() or [])


def wait_until(pred, within, every=0.05):
    """Seconds until @pred() holds, or None if it did not within @within."""
    t0 = time.monotonic()
    while True:
        if pred():
            return time.monotonic() - t0
        if time.monotonic() - t0 > within:
            return None
        time.sleep(every)


def rdma_counts():
    """Per-device counts of RDMA objects from iproute2's rdma tool (the
    kernel's own GSI QP, CQ and PD included): {"rxe0": {"pd": 1, ...}}."""
    check(shutil.which("rdma"), "iproute2's rdma tool is not in the guest")
    r = run("rdma", ["-j", "resource", "show"], timeout=30)
    check(r.rc == 0, lambda: "rdma -j resource show: " + r.describe())
    return {d["ifname"]: {k: d[k] for k in COUNTED + ("ctx",) if k in d}
            for d in json.loads(r.out)}


def fmt_counts(c, keys=COUNTED + ("ctx",)):
    return ", ".join("%s: %s" % (dev, " ".join("%s %s" % (k, v[k])
                                                for k in keys if k in v))
                     for dev, v in sorted(c.items()))


def only(c, keys):
    return {dev: {k: v[k] for k in keys if k in v} for dev, v in c.items()}


def rdma_objects():
    """The processes' RDMA objects, one per line, for a failure message."""
    out = []
    for kind in COUNTED + ("ctx",):
        r = run("rdma", ["resource", "show", kind], timeout=30)
        out += [kind + ": " + x.strip() for x in r.out.splitlines()
                if "pid" in x]
    return "\n  ".join(out) or "(none with a pid)"


def resources_back(base, what, keys=COUNTED, within=10.0):
    """The RDMA objects counted by @keys return to @base within @within s
    (a process's objects go as it exits, a session's as it ends); returns
    the seconds it took."""
    seen = [None]

    def same():
        seen[0] = rdma_counts()
        return only(seen[0], keys) == only(base, keys)
    took = wait_until(same, within, every=0.3)
    check(took is not None, lambda: "after %s: RDMA objects %s, %s before "
          "(still so %.0f s later); objects:\n  %s" %
          (what, fmt_counts(seen[0], keys), fmt_counts(base, keys), within,
           rdma_objects()))
    return took


def fds_back(srv, fd0, what, within=5.0):
    pid = srv.proc.pid
    took = wait_until(lambda: fd_count(pid) <= fd0, within, every=0.1)
    check(took is not None, lambda: "after %s: the server holds %d "
          "descriptors, %d before: %s" %
          (what, fd_count(pid), fd0, " ".join(fd_list(pid))))


def verbs_client(srv, args, timeout=TIMEOUT):
    return run(srv.binary, ["-c", "-a", ADDR, "-p", srv.port] +
               [str(a) for a in args], timeout=timeout)


def ok_doc(r, what, schema=True):
    """@r succeeded: a valid document (against the schema unless not
    @schema), no error, every result ok and verified clean on both
    sides."""
    check(r.rc == 0, lambda: "%s failed:\n%s" % (what, r.describe()))
    try:
        doc = r.json() if schema else json.loads(r.out)
    except ValueError as e:
        raise TestFailure("%s: stdout is not JSON (%s)\n%s" %
                          (what, e, r.describe()))
    check(doc["error"] is None, "%s: error %r" % (what, doc["error"]))
    for x in doc["results"]:
        check(x["ok"] and x["messages"] > 0, "%s: result %r ok, %r messages"
              % (what, x["ok"], x["messages"]))
        for side in ("client", "server"):
            check(x["cpu"][side]["verify_errors"] == 0,
                  "%s: %s verify errors" % (what, side))
    return doc


def verbs_ok(srv, args, what, within=10.0, schema=True):
    """A verbs test on @srv must succeed (ok_doc), retrying only while the
    server answers busy (the previous session still ending) for @within s.
    Returns (seconds until it succeeded, busy answers)."""
    check(srv.alive(), lambda: "the server died before %s: %s" %
          (what, srv.stderr()[-2000:]))
    t0, busy = time.monotonic(), 0
    while True:
        r = verbs_client(srv, list(args) + ["--json"])
        took = time.monotonic() - t0
        if r.rc == 1 and '"busy"' in r.out and took < within:
            busy += 1
            time.sleep(0.1)
            continue
        ok_doc(r, "%s (busy %d times before, %.1f s)" % (what, busy, took),
               schema)
        return took, busy


class Watched:
    """A client in the background whose --json-stream lines are read as
    they come: the first interval line says its throughput phase runs."""

    def __init__(self, srv, args):
        self.errfile = tempfile.TemporaryFile(mode="w+")
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [srv.binary, "-c", "-a", ADDR, "-p", str(srv.port)] +
            [str(a) for a in args], stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=self.errfile, text=True,
            errors="replace")
        self.lines, self.phase_at, self.point_at = [], None, None
        self.event = threading.Event()
        self.point = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line)
            if self.point_at is None and '"type":"point"' in line:
                self.point_at = time.monotonic()
                self.point.set()
            if self.phase_at is None and '"interval"' in line:
                # an interval line comes at the end of its interval
                self.phase_at = time.monotonic()
                self.event.set()
        self.event.set()
        self.point.set()

    def describe(self):
        self.errfile.seek(0)
        return "client exit %r after %.1f s; stdout tail: %s; stderr: %s" % (
            self.proc.poll(), time.monotonic() - self.t0,
            "".join(self.lines[-3:])[-800:].strip() or "(empty)",
            self.errfile.read()[-800:].strip() or "(empty)")

    def wait_phase(self, within=60.0):
        self.event.wait(within)
        check(self.phase_at is not None, lambda: "the client did not reach "
              "its throughput phase within %.0f s: %s" %
              (within, self.describe()))
        check(self.proc.poll() is None, lambda: "the client ended early: " +
              self.describe())

    def wait_point(self, within=60.0):
        """Until the client's first point began (its setup done)."""
        self.point.wait(within)
        check(self.point_at is not None, lambda: "the client did not begin "
              "its first point within %.0f s: %s" % (within, self.describe()))
        check(self.proc.poll() is None, lambda: "the client ended early: " +
              self.describe())

    def doc(self):
        """The document it printed last (after it ended), or {}."""
        self.reader.join(5)
        try:
            return json.loads(self.lines[-1]) if self.lines else {}
        except ValueError:
            return {}

    def kill(self, within=60.0):
        """SIGKILL; returns the seconds until it was reaped (or None)."""
        t0 = time.monotonic()
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=within)
        except subprocess.TimeoutExpired:
            return None
        self.reader.join(5)
        return time.monotonic() - t0

    def close(self):
        if self.kill() is None:
            self.proc.wait()
        self.errfile.close()


def short_plan(n):
    """@n short tests: the ops in turn, every fifth with -P 2, every third
    with --verify, one --bidir."""
    plan = []
    for i in range(n):
        op = RDMA_OPS[i % len(RDMA_OPS)]
        args = ["-x", "rdma", "-o", op] + SHORT
        if i % 5 == 2:
            args += ["-P", "2"]
        if i % 3 == 1:
            args += ["--verify"]
        if i == 6:  # a write
            args += ["--bidir"]
        plan.append(args)
    return plan


def rss_env():
    """The environment for a server whose RSS is measured. Under ASan the
    quarantine holds every freed chunk, up to 256 MB by default, so RSS
    grows with what the server allocates and frees (the fopen buffers of
    a hundred counter reads a point made it 42 MB over 25 tests), not with
    what it keeps. A 1 MB quarantine still catches a use after free close
    to the free, LeakSanitizer still checks at exit, and RSS measures what
    the server holds again (+0.6 MB over the same tests)."""
    asan = os.environ.get("ASAN_OPTIONS")
    if not asan:
        return None
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = asan + ":quarantine_size_mb=1"
    return env


def resources_case(binary, _srv):
    """[1] One server, many short tests: its RDMA objects, descriptors and
    memory are where they were after the first."""
    with RobustServer(binary, ["--quiet"], env=rss_env()) as srv:
        pid = srv.proc.pid
        idle = rdma_counts()
        fd_idle, rss_idle = fd_count(pid), status_kib(pid, "VmRSS")
        verbs_ok(srv, ["-x", "rdma", "-o", "write"] + SHORT, "the first test")
        resources_back(idle, "the first test")
        # librdmacm keeps the device it used open (a ctx and two
        # descriptors) for the process's life: the baseline is after it
        base = rdma_counts()
        fd0, rss0 = fd_count(pid), status_kib(pid, "VmRSS")
        log("  idle server: %s; %d fds, RSS %d KiB" %
            (fmt_counts(idle), fd_idle, rss_idle))
        log("  after one test (the baseline): %s; %d fds, RSS %d KiB" %
            (fmt_counts(base), fd0, rss0))
        t0, done, busy, slowest = time.monotonic(), 0, 0, 0.0
        for args in short_plan(RES_TESTS):
            spent = time.monotonic() - t0
            if done >= RES_MIN_TESTS and spent * (done + 1) / done > \
                    RES_BUDGET_S:
                break
            t1 = time.monotonic()
            _, b = verbs_ok(srv, args, "short test %d (%s)" %
                            (done + 1, " ".join(args)),
                            schema=done % RES_SCHEMA_EVERY == 0)
            slowest = max(slowest, time.monotonic() - t1)
            busy += b
            done += 1
        spent = time.monotonic() - t0
        settle = resources_back(base, "%d tests" % done,
                                keys=COUNTED + ("ctx",))
        fds_back(srv, fd0, "%d tests" % done)
        after = rdma_counts()
        fd1, rss1 = fd_count(pid), status_kib(pid, "VmRSS")
        log("  %d of %d short tests in %.1f s (%.2f s each, slowest %.1f s; "
            "%d busy answers retried)%s" %
            (done, RES_TESTS, spent, spent / done, slowest, busy,
             "" if done == RES_TESTS else
             "; cut to fit the %d s budget" % RES_BUDGET_S))
        log("  after them: %s (settled in %.1f s); %d fds, RSS %d KiB "
            "(%+d KiB)" % (fmt_counts(after), settle, fd1, rss1,
                           rss1 - rss0))
        check(rss1 - rss0 < RSS_GROWTH_KIB,
              "the server's RSS grew %d KiB over %d tests (%d -> %d KiB), "
              "limit %d KiB" % (rss1 - rss0, done, rss0, rss1,
                                RSS_GROWTH_KIB))


def killed_case(binary, _srv):
    """[2a] A client SIGKILLed 2 s into a -t 5 throughput phase: the
    server ends the test and serves the next client."""
    with RobustServer(binary) as srv:
        base = rdma_counts()
        verbs_ok(srv, NORMAL, "the first test")
        fd0, mark = fd_count(srv.proc.pid), len(srv.stderr())
        c = Watched(srv, ["-x", "rdma", "-o", "write", "-S", "4096", "-q",
                          "8", "-t", "5", "-i", "0.5", "--json-stream"] + FEW)
        try:
            c.wait_phase()
            # the first interval line came 0.5 s into the phase
            time.sleep(max(0.0, c.phase_at + 1.5 - time.monotonic()))
            check(c.proc.poll() is None, lambda: "the -t 5 client ended "
                  "before it was killed: " + c.describe())
            t_kill = time.monotonic()
            reaped = c.kill()
            bound = 5 + STALL_S + SLACK_S - 2  # from the kill, 2 s in
            ended = wait_until(lambda: not session_open(srv.port), bound)
            check(ended is not None, lambda: "the server still ran the "
                  "killed client's test %d s after the kill (its bound: "
                  "the 5 s phase + %d s + %d s); server log: %s" %
                  (bound, STALL_S, SLACK_S, srv.log_since(mark)))
            ended = time.monotonic() - t_kill
            _, busy = verbs_ok(srv, NORMAL, "a normal test after the "
                                  "SIGKILL", within=bound)
            next_ok = time.monotonic() - t_kill
            back = resources_back(base, "the SIGKILL")
            fds_back(srv, fd0, "the SIGKILL")
        finally:
            c.close()
        log("  SIGKILL 2.0 s into the throughput phase: the killed client "
            "reaped in %s; the server ended its test %.2f s after the kill "
            "and a new client succeeded %.1f s after it (%d busy answers); "
            "RDMA objects back (%s) %.1f s after that; server: %s" %
            ("%.2f s" % reaped if reaped is not None else "60 s+", ended,
             next_ok, busy, fmt_counts(base, COUNTED), back,
             srv.log_since(mark)))


def ud_strays_case(binary, _srv):
    """--qp ud's queue pairs take datagrams from anyone with rdma_cm's
    qkey: tests/vm/ud_stray (built beside verbs_smoke) sprays 400 QP
    numbers from those a first test had (rxe numbers them upwards over
    the boot) with 64-byte datagrams through two UD tests (send, 64 B,
    --verify, a latency phase). Each succeeds, verified; the server counts
    no more than the client sent (a stray counted would show as more; the
    strays use up receives, so some of the client's may be lost: a
    figure); the server's log notes a dropped stray; it serves a test
    after them."""
    stray = os.path.join(os.path.dirname(SMOKE or ""), "ud_stray")
    check(SMOKE is not None and os.access(stray, os.X_OK),
          "no ud_stray beside verbs_smoke (%r)" % stray)
    args = ["-x", "rdma", "--qp", "ud", "-o", "send", "-S", "64", "-q", "16",
            "-t", "1.5", "--verify", "--lat-iterations", "300", "--json"]
    got = []
    with RobustServer(binary) as srv:
        # rxe numbers its QPs upwards over the boot: a first test says
        # where the numbers are, and the next tests' QPs come after them
        first = ok_doc(verbs_client(srv, args[:-6] + ["-t", "0.2",
                                                      "--json"]),
                       "a UD test before the strays")["results"][0]
        qpns = [first[k]["qpn"] for k in ("client_transport",
                                          "server_transport")]
        lo, hi = max(2, min(qpns) - 8), max(qpns) + 400
        sp = subprocess.Popen([stray, ADDR, "8", "64", str(lo), str(hi)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        try:
            for i in (1, 2):
                r = ok_doc(verbs_client(srv, args), "UD among strays %d" % i)
                res = r["results"][0]
                loss = res["loss"]
                check(loss["arrived"] <= loss["sent"] == res["messages"] and
                      loss["lost"] == loss["sent"] - loss["arrived"] and
                      res["cpu"]["server"]["messages"] == loss["arrived"],
                      "UD among strays: loss %r, server %r" %
                      (loss, res["cpu"]["server"]["messages"]))
                got.append("%d of %d arrived, %d of %d pings lost" %
                           (loss["arrived"], loss["sent"],
                            loss["pings_lost"], loss["pings"]))
        finally:
            out, err = sp.communicate(timeout=60)
        check(sp.returncode == 0 and "datagrams of 64 bytes" in out,
              lambda: "ud_stray: rc %r %r %r" % (sp.returncode, out, err))
        check("--qp ud: dropped a datagram from QP" in srv.stderr(),
              lambda: "no stray noted in the server's log: " +
              srv.stderr()[-1500:])
        ok_doc(verbs_client(srv, args), "UD after the strays")
    log("  %s; among them: %s; a test after them passed" %
        (out.strip(), "; ".join(got)))


def stopped_run(srv, op, bound_s, why):
    """[2b] A -C client SIGSTOPped in its throughput phase for
    STOP_HOLD_S, then SIGKILLed: the server must end the test on its own
    within @bound_s of the stop, serve a new client while the stopped one
    still holds its connection, and again after the kill. Returns what
    was measured, as a sentence."""
    verbs_ok(srv, NORMAL, "the first %s test" % op)
    fd0, mark = fd_count(srv.proc.pid), len(srv.stderr())
    c = Watched(srv, ["-x", "rdma", "-o", op, "-S", "4096", "-q", "8", "-C",
                      "100000000", "-i", "0.5", "--json-stream"] + FEW)
    try:
        c.wait_phase()
        time.sleep(max(0.0, c.phase_at + 0.5 - time.monotonic()))
        check(c.proc.poll() is None, lambda: "the client ended before it "
              "was stopped: " + c.describe())
        c.proc.send_signal(signal.SIGSTOP)
        t_stop = time.monotonic()
        into = t_stop - c.t0
        ended = wait_until(lambda: not session_open(srv.port),
                           STOP_HOLD_S - 1)
        check(ended is not None, lambda: "%s: the server still ran the "
              "stopped client's test %d s after SIGSTOP (%.0f s after the "
              "client started; want it ended within %d s: %s); server log: "
              "%s" % (op, STOP_HOLD_S - 1, time.monotonic() - c.t0,
                      bound_s, why, srv.log_since(mark)))
        ended = time.monotonic() - t_stop
        check(ended <= bound_s, lambda: "%s: the server ended the stopped "
              "client's test %.1f s after SIGSTOP, want within %d s (%s); "
              "server log: %s" % (op, ended, bound_s, why,
                                  srv.log_since(mark)))
        said = srv.log_since(mark)
        t1 = time.monotonic()
        _, busy = verbs_ok(srv, NORMAL, "%s: a normal test while the "
                           "stopped client lives" % op)
        next_ok = time.monotonic() - t1
        time.sleep(max(0.0, t_stop + STOP_HOLD_S - time.monotonic()))
        reaped = c.kill()
        check(reaped is not None, lambda: "%s: the stopped client did not "
              "die within 60 s of SIGKILL" % op)
        _, busy2 = verbs_ok(srv, NORMAL, "%s: a normal test after the "
                            "stopped client's SIGKILL" % op)
        fds_back(srv, fd0, "%s: a stopped client" % op)
    finally:
        c.close()
    return ("%s: SIGSTOP %.1f s after the client started; the server ended "
            "its test %.1f s after the stop (%.1f s after the start; %s), "
            "saying: %s; a new client succeeded %.1f s later (%d busy); "
            "SIGKILL at %d s, reaped in %.2f s, a normal test then passed "
            "(%d busy)" % (op, into, ended, into + ended, why, said, next_ok,
                           busy, STOP_HOLD_S, reaped, busy2))


def stopped_case(binary, _srv):
    """[2b] Stopped clients, one per bound, in parallel (each waits out
    its bound): write on a --max-time 5 server (the responder cannot see
    one-sided traffic: --max-time ends it, 5 s + SLACK_S after the session
    began), send on a --stall-timeout 6 server (no receive for that long).
    The bounds are the options', not the defaults' (30 s, 3600 s), so
    that the case does not wait the defaults out."""
    base = rdma_counts()
    cases = (("write", ["--max-time", str(STOP_MAX_TIME_S)],
              STOP_MAX_TIME_S + SLACK_S + 6,  # 15.7 s seen
              "--max-time %d + %d s slack from the session's start" %
              (STOP_MAX_TIME_S, SLACK_S)),
             ("send", ["--stall-timeout", str(STOP_STALL_S)],
              STOP_STALL_S + 8, "the --stall-timeout %d bound" %
              STOP_STALL_S))

    def one(op, extra, bound, why):
        with RobustServer(binary, extra) as srv:
            return stopped_run(srv, op, bound, why)

    in_parallel([(x[0], lambda x=x: one(*x)) for x in cases])
    resources_back(base, "the stopped clients")


def in_parallel(runs):
    """Each (name, fn) of @runs at once, in threads (each waits out a
    bound of its own); then each one's sentence logged, in order, or its
    failure, all of them reported."""
    out = {}

    def one(name, fn):
        try:
            out[name] = fn()
        except Exception as e:  # reported below, with the others' outcome
            out[name] = e

    threads = [threading.Thread(target=one, args=r) for r in runs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    fails = []
    for name, _ in runs:
        if isinstance(out.get(name), str):
            log("  " + out[name])
        else:
            fails.append("%s: %s" % (name, out.get(name)))
    check(not fails, "\n".join(fails))


def server_stopped_run(srv, op):
    """A --stall-timeout PING_STALL_S client in its ping-pong phase while
    the server is SIGSTOPped: it must fail (exit 1, code timeout, "no
    answer to a ping") within that bound and PING_AFTER_S more; the
    server, continued, serves a normal test. Returns what was measured."""
    mark = len(srv.stderr())
    c = Watched(srv, ["-x", "rdma", "-o", op, "-S", "64", "--warmup", "10",
                      "--no-bandwidth", "--lat-iterations", "1000000000",
                      "--stall-timeout", str(PING_STALL_S), "--json-stream"])
    try:
        c.wait_point()
        time.sleep(2.0)  # the 10 warm-up operations done: pinging
        check(c.proc.poll() is None, lambda: "the client ended before the "
              "server was stopped: " + c.describe())
        srv.proc.send_signal(signal.SIGSTOP)
        t_stop = time.monotonic()
        bound = PING_STALL_S + PING_AFTER_S
        ended = wait_until(lambda: c.proc.poll() is not None, bound + 20)
        srv.proc.send_signal(signal.SIGCONT)
        check(ended is not None, lambda: "%s: the client still pinged %d s "
              "after the server's SIGSTOP, with --stall-timeout %d: %s" %
              (op, bound + 20, PING_STALL_S, c.describe()))
        error = c.doc().get("error") or {}
        check(PING_STALL_S - 0.5 <= ended <= bound, lambda: "%s: the "
              "client ended %.1f s after the server's SIGSTOP; want %d s "
              "to %d s: %s" % (op, ended, PING_STALL_S, bound, c.describe()))
        check(c.proc.returncode == 1 and error.get("code") == "timeout" and
              "no answer to a ping for %d s" % PING_STALL_S in
              error.get("message", ""), lambda: "%s: want exit 1, code "
              "timeout, no answer to a ping: %s" % (op, c.describe()))
        took, busy = verbs_ok(srv, NORMAL, "%s: a normal test after the "
                              "server was continued" % op)
    finally:
        if srv.alive():
            srv.proc.send_signal(signal.SIGCONT)
        c.close()
    return ("%s: the client failed %.1f s after the server's SIGSTOP "
            "(--stall-timeout %d): %s; the server, continued, said: %s; a "
            "normal test passed %.1f s later (%d busy)" %
            (op, ended, PING_STALL_S, error.get("message"),
             srv.log_since(mark), took, busy))


def server_stopped_case(binary, _srv):
    """[2d] The server SIGSTOPped mid ping-pong: the client's deadline
    (checked every RV_CLOCK_CHECK turns of its spin) ends its test, on the
    marker-polling path (write) and the CQ-polling one (send), each with
    a server of its own, at once."""
    base = rdma_counts()

    def one(op):
        with RobustServer(binary) as srv:
            return server_stopped_run(srv, op)

    in_parallel([(op, lambda op=op: one(op)) for op in ("write", "send")])
    resources_back(base, "the stopped servers' tests")


def sigint_case(binary, _srv):
    """[2c] SIGINT to the server while a verbs test runs: the client is
    told of the shutdown at once and exits 1 with a valid document naming
    it; the server exits."""
    base = rdma_counts()
    srv = RobustServer(binary).start()
    p = None
    outf = tempfile.TemporaryFile(mode="w+")  # no pipe to fill meanwhile
    errf = tempfile.TemporaryFile(mode="w+")

    def output():
        outf.seek(0)
        errf.seek(0)
        return outf.read(), errf.read()
    try:
        p = subprocess.Popen([binary, "-c", "-a", ADDR, "-p", str(srv.port),
                              "-x", "rdma", "-o", "write", "-S", "4096", "-q",
                              "8", "-t", "30", "--json"] + FEW,
                             stdin=subprocess.DEVNULL, stdout=outf,
                             stderr=errf)
        up = wait_until(lambda: rdma_counts()["rxe0"]["qp"] >=
                        base["rxe0"]["qp"] + 2, 60, every=0.2)
        check(up is not None, "no QPs for the -t 30 test within 60 s")
        time.sleep(2.0)  # into the throughput phase
        check(p.poll() is None, lambda: "the -t 30 client ended early: %r" %
              (output(),))
        t0 = time.monotonic()
        srv.proc.send_signal(signal.SIGINT)
        ends = {}  # when each process exited, watched together
        while len(ends) < 2 and time.monotonic() - t0 < 35:
            for who, proc in (("client", p), ("server", srv.proc)):
                if who not in ends and proc.poll() is not None:
                    ends[who] = time.monotonic() - t0
            time.sleep(0.02)
        srv_rc, srv_s = srv.proc.poll(), ends.get("server")
        if "client" not in ends:  # past the -t 30 phase's end
            p.kill()
            p.wait()
            out, err = output()
            raise TestFailure("the client still ran 35 s after the server's "
                              "SIGINT (the server exited %r after %s); client "
                              "stdout: %s; stderr: %s; server log: %s" %
                              (srv_rc, srv_s, out[-600:], err[-600:],
                               srv.log_since(0)))
        out, err = output()
        client_s = ends["client"]
        log("  SIGINT 2.0 s after the QPs came up: the client exited %d "
            "after %.2f s; the server exited %r after %s; client "
            "stderr: %s" % (p.returncode, client_s, srv_rc,
                            "%.2f s" % srv_s if srv_s is not None else
                            "35 s+", err.strip()[-300:] or "(empty)"))
        try:
            doc = json.loads(out)
        except ValueError as e:
            raise TestFailure("the client (exit %d after %.2f s) printed no "
                              "JSON document (%s): %s %s" %
                              (p.returncode, client_s, e, out[-800:],
                               err[-800:]))
        e2elib.check_doc(doc, out[-1000:])
        errs = json.dumps([doc["error"]] + [x.get("error") for x in
                                            doc["results"]])
        log("  its error: %s" % json.dumps(doc["error"]))
        fails = []
        if client_s > SIGINT_BOUND_S:
            fails.append("the client ended %.2f s after the server's SIGINT, "
                         "want within %.1f s (the server exited after %s)" %
                         (client_s, SIGINT_BOUND_S, "%.2f s" % srv_s
                          if srv_s is not None else "35 s+"))
        if p.returncode != 1:
            fails.append("the client exited %d, want 1" % p.returncode)
        if doc["error"] is None or "shut" not in errs.lower():
            fails.append("the client's errors do not name the shutdown: %s"
                         % errs)
        if srv_s is None or srv_s > 10:
            fails.append("the server exited %s after SIGINT, want within "
                         "10 s" % ("%.2f s" % srv_s if srv_s is not None
                                    else "not 35 s"))
        check(not fails, lambda: "; ".join(fails) + "; server log: " +
              srv.log_since(0))
        resources_back(base, "the server's SIGINT")
    finally:
        if p is not None and p.poll() is None:
            p.kill()
            p.wait()
        srv.stop()
        for f in (outf, errf, srv.errfile):
            if f:
                f.close()


def memory_case(binary, _srv):
    """[2d] 1 MiB x depth 32 (32 MiB) against --max-memory 16M on rdma:
    refused naming the limit; then an 8 MiB test on the same server."""
    base = rdma_counts()
    with RobustServer(binary, ["--quiet", "--max-memory", "16M"]) as srv:
        r = verbs_client(srv, ["-x", "rdma", "-o", "write", "-S", "1M", "-q",
                               "32", "-C", "20", "--json"] + FEW)
        check(r.rc == 1, lambda: "32 MiB over --max-memory 16M: want exit "
              "1:\n" + r.describe())
        doc = r.json()
        errs = json.dumps([doc["error"]] + [x.get("error") for x in
                                            doc["results"]])
        check("max-memory" in errs and "16" in errs, "the refusal does not "
              "name --max-memory 16M: %s" % errs)
        refused = r.seconds
        took, _ = verbs_ok(srv, ["-x", "rdma", "-o", "write", "-S", "1M",
                                 "-q", "8", "-C", "16", "--warmup", "2",
                                 "--lat-iterations", "4"],
                           "8 MiB under --max-memory 16M")
        resources_back(base, "the refusal")
    log("  refused in %.2f s (client exit 1): %s; then 1 MiB x 8 passed "
        "in %.1f s" % (refused, json.dumps(doc["error"]), took))


def robust(binary):
    """RP_ROBUST_ONLY=resources,killed,stopped,server_stopped,sigint,memory,
    ud_strays: only those."""
    tests = [("resources", "resources after many short tests",
              resources_case),
             ("killed", "client SIGKILLed mid-test", killed_case),
             ("stopped", "client SIGSTOPped mid-test (write, send)",
              stopped_case),
             ("server_stopped", "server SIGSTOPped mid ping-pong (write, "
              "send)", server_stopped_case),
             ("sigint", "SIGINT to the server mid-test", sigint_case),
             ("memory", "a spec over --max-memory", memory_case),
             ("ud_strays", "--qp ud among stray datagrams", ud_strays_case)]
    only_these = os.environ.get("RP_ROBUST_ONLY")
    if not only_these and os.environ.get("ASAN_OPTIONS"):
        # the sanitizer suite: the SIGSTOP cases wait out timers the
        # first suite has proven; the rest hunt leaks and UB
        only_these = "resources,killed,sigint,memory,ud_strays"
    return [(name, fn) for key, name, fn in tests
            if not only_these or key in only_these.split(",")]

def siw(binary):
    """tests/vm/siw_tests.py, in a guest booted with rxe-run --siw."""
    import siw_tests
    return siw_tests.siw(binary)


def nfs(binary):
    """tests/vm/nfs_tests.py: the file transport on NFS over RDMA and
    TCP (tests/vm/nfs_setup.sh)."""
    import nfs_tests
    return nfs_tests.nfs(binary)


def smoke(_binary):
    """tests/vm/verbs_smoke.c: the rdma transport through its ops table
    alone (its path is the third argument)."""
    def run_smoke(_b, _srv):
        if not SMOKE:
            raise TestFailure("no verbs_smoke binary: pass its path after "
                              "rdmaperf's")
        # the sanitizer suite: an eighth of the bytes and pings (-l), the
        # same code paths at every size and depth
        light = ["-l"] if os.environ.get("ASAN_OPTIONS") else []
        p = subprocess.run([SMOKE] + light, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           timeout=600)
        log("  " + p.stdout.rstrip().replace("\n", "\n  "))
        check(p.returncode == 0, "verbs_smoke exited %d" % p.returncode)
    return [("verbs_smoke", run_smoke)]


GROUPS = {"smoke": smoke, "verbs_ops": verbs_ops,
          "verbs_sizes": verbs_sizes, "transports": transports,
          "streams": streams, "robust": robust, "siw": siw, "nfs": nfs}
SMOKE = None


def main():
    global SMOKE
    groups = sys.argv[1].split(",") if len(sys.argv) in (3, 4) else []
    if not groups or any(g not in GROUPS for g in groups):
        sys.stderr.write("usage: guest_tests.py GROUP[,GROUP...] RDMAPERF "
                         "[VERBS_SMOKE]\n  groups: %s\n" % " ".join(GROUPS))
        sys.exit(2)
    binary = os.path.abspath(sys.argv[2])
    if len(sys.argv) == 4:
        SMOKE = os.path.abspath(sys.argv[3])
    os.environ.setdefault("RP_VM_ADDR", ADDR)
    srv = GuestServer(binary)
    srv.start()
    try:
        # several groups in one boot: each test's name says its group
        tests = [(name if len(groups) == 1 else "%s: %s" % (g, name),
                  lambda b, f=fn: f(b, srv))
                 for g in groups for name, fn in GROUPS[g](binary)]
        sys.argv = [sys.argv[0], binary]
        e2elib.main(tests)
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
