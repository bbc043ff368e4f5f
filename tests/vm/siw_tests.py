# SPDX-License-Identifier: MIT
"""
vm.siw: the rdma transport on Soft-iWARP (siw0, rxe-run --siw), what
iWARP has: write and read over sizes 1 B, 4 KiB and 1 MiB at depth 1 and
16 with --verify (a sweep each), send at each of those sizes alone with
--verify and without; write_imm, fetch_add and cmp_swap refused before
anything connects (the client: exit 2, one line naming siw0, iWARP and
what it has; the server, asked directly: ERROR "unsupported" at SETUP,
logged); the comparison table of rdma, rsocket and tcp, and -x all with
an operation rdma lacks; rdmaperf beside ib_write_bw -R on siw0.

A send sweep whose small points run on buffers set up for 1 MiB is left
out: iWARP has no RNR retry, and small sends can outrun the receives the
responder has posted (siw answers with TERMINATE, DDP untagged buffer, no
buffer; README, "iWARP"). For the same reason a send phase has no more
messages than the server keeps receives posted (fits()).
"""
import os
import re
import socket
import subprocess
import time

import e2elib
from e2elib import check, log, run
import guest_tests as gt

DEV = "siw0"
SIZES = (1, 4096, 1 << 20)
FEW = ["--warmup", "20", "--lat-iterations", "50"]
COUNT = 100
# The sanitizer suite runs the cases for leaks and undefined behaviour in
# the same code paths with fewer messages, at depth 16 only, and leaves out
# the runs without --verify and the perftest comparison (no rdmaperf code
# the other cases do not run).
SANITIZED = bool(os.environ.get("ASAN_OPTIONS"))
if SANITIZED:
    COUNT = 30


def need_siw():
    with open("/sys/class/infiniband/%s/node_type" % DEV) as f:
        kind = f.read()
    check("RNIC" in kind, "%s is %r, not an iWARP RNIC" % (DEV, kind))


def sweep(b, s, op, depth, verify):
    args = ["-x", "rdma", "-o", op, "-S", "1,4K,1M", "-q", str(depth),
            "-C", str(COUNT)] + FEW + (["--verify"] if verify else [])
    doc = gt.client_json(b, s.port, args)
    check([x["size"] for x in doc["results"]] == list(SIZES),
          "sizes %r" % [x["size"] for x in doc["results"]])
    for x in doc["results"]:
        gt.check_result(x, "rdma", op, x["size"], depth, COUNT, verify)
    info = doc["results"][0]["client_transport"]
    check(info.get("device") == DEV, "ran on %r, not %s" %
          (info.get("device"), DEV))


def fits(size, depth, n):
    """@n, or fewer: at most the receives the server keeps posted for
    @size at @depth (src/xport/verbs/setup.c: depth + 16, or as many slots
    as fit in 8 MiB, at most 512). iWARP has no receiver-not-ready retry
    and rdmaperf no send credits, so a phase of more messages than that
    fails whenever the server's software falls behind the wire (README,
    iWARP): 100 sends of 1 MiB at depth 16 with --verify did, once."""
    return min(n, max(depth + 16, (8 << 20) // size), 512)


def sends(b, s, depth, verify):
    for size in SIZES:
        n = fits(size, depth, COUNT)
        doc = gt.client_json(b, s.port, ["-x", "rdma", "-o", "send", "-S",
                                         str(size), "-q", str(depth), "-C",
                                         str(n), "--warmup",
                                         str(fits(size, depth, 20)),
                                         "--lat-iterations", "50"] +
                             (["--verify"] if verify else []))
        gt.check_result(doc["results"][0], "rdma", "send", size, depth, n,
                        verify)


def refused(b, s, op):
    r = run(b, ["-c", "-a", gt.ADDR, "-p", s.port, "-x", "rdma", "-o", op,
                "-C", "100"], timeout=gt.TIMEOUT)
    want = ("device %s (iWARP) cannot do %s; it does write, read, send" %
            (DEV, op))
    check(r.rc == 2 and want in r.err and r.err.count("\n") == 1,
          lambda: "want exit 2 and one line %r:\n%s" % (want, r.describe()))
    check("FAILED (unsupported)" in r.out, lambda: r.describe())


def server_refuses(b, _s):
    """Asked directly (no client preflight), the server refuses write_imm
    at SETUP with ERROR "unsupported" and logs it; it serves on."""
    with gt.RobustServer(b, []) as srv:
        sock = socket.create_connection((gt.ADDR, int(srv.port)), timeout=10)
        sock.settimeout(30)
        sock.sendall(e2elib.message(e2elib.HELLO, e2elib.hello_body()))
        e2elib.recv_message(sock)
        sock.sendall(e2elib.message(e2elib.TEST, e2elib.spec_body(
            transport="rdma", op="write_imm")))
        m = e2elib.recv_message(sock)
        e2elib.check_error_message(m, "unsupported", (DEV, "iWARP"))
        sock.close()
        time.sleep(0.5)
        check("ERROR" in srv.stderr() or "unsupported" in srv.stderr() or
              "cannot do write_imm" in srv.stderr(),
              lambda: "the server's log:\n" + srv.stderr()[-2000:])
        gt.verbs_ok(srv, ["-x", "rdma", "-o", "write", "-S", "4096", "-C",
                          "100"] + FEW, "a write after the refusal")


def table(b, s):
    t = run(b, ["-c", "-a", gt.ADDR, "-p", s.port, "-x", "rdma,rsocket,tcp",
                "-o", "write", "-S", "4096", "-q", "8", "-C", "300"] + FEW,
            timeout=gt.TIMEOUT)
    check(t.rc == 0, lambda: t.describe())
    for row in ("comparison (ratio to rdma)", "throughput Gb/s",
                "unloaded p50 us"):
        check(row in t.out, "table lacks %r:\n%s" % (row, t.out))
    a = run(b, ["-c", "-a", gt.ADDR, "-p", s.port, "-x", "all", "-o",
                "write_imm", "-C", "100"] + FEW, timeout=gt.TIMEOUT)
    check(a.rc == 2 and "(iWARP) cannot do write_imm" in a.out,
          lambda: "-x all -o write_imm:\n" + a.describe())


def beside_perftest(b, s):
    """64 KiB writes, depth 128, 2000 of them: ib_write_bw -R then
    rdmaperf on siw0 (numbers only: emulation is too noisy for a bound)."""
    port = str(e2elib.free_port())
    args = ["-R", "-d", DEV, "-s", "65536", "-n", "2000", "-p", port,
            "-F", "--report_gbits"]
    srv = subprocess.Popen(["ib_write_bw"] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    time.sleep(1.0)
    cli = subprocess.run(["ib_write_bw"] + args + [gt.ADDR],
                         capture_output=True, text=True, timeout=120)
    srv.communicate(timeout=60)
    m = [ln.split() for ln in cli.stdout.splitlines()
         if re.match(r"\s*65536\s+2000\s", ln)]
    check(cli.returncode == 0 and m, lambda: "ib_write_bw failed:\n" +
          cli.stdout[-2000:] + cli.stderr[-1000:])
    pt_gbps = float(m[0][3])  # BW average, Gb/s
    doc = gt.client_json(b, s.port, ["-x", "rdma", "-o", "write", "-S",
                                     "64K", "-q", "128", "-C", "2000",
                                     "--no-latency"])
    rp_gbps = doc["results"][0]["throughput"]["bits_per_second"] / 1e9
    log("  siw0 64 KiB write, depth 128, 2000: rdmaperf %.3f Gb/s, "
        "ib_write_bw %.3f Gb/s, ratio %.2f" % (rp_gbps, pt_gbps,
                                               rp_gbps / pt_gbps))
    check(rp_gbps > 0 and pt_gbps > 0, "a rate of 0")


def siw(binary):
    need_siw()
    tests = []
    # the sanitizer suite: depth 16 with --verify only, the rdmaperf code of
    # depth 1 and of runs without --verify being the same
    depths = (16,) if SANITIZED else (1, 16)
    for op in ("write", "read"):
        for q in depths:
            tests.append(("%s 1 B..1 MiB q%d --verify" % (op, q),
                          lambda b, s, o=op, d=q: sweep(b, s, o, d, True)))
    for q in depths:
        tests.append(("send 1 B, 4 KiB, 1 MiB q%d --verify" % q,
                      lambda b, s, d=q: sends(b, s, d, True)))
    if not SANITIZED:
        tests.append(("send 1 B, 4 KiB, 1 MiB q16",
                      lambda b, s: sends(b, s, 16, False)))
        tests.append(("write sweep q16",
                      lambda b, s: sweep(b, s, "write", 16, False)))
    for op in ("write_imm", "fetch_add", "cmp_swap"):
        tests.append(("%s refused" % op, lambda b, s, o=op: refused(b, s, o)))
    tests += [("the server refuses at SETUP", server_refuses),
              ("rdma,rsocket,tcp table; -x all", table)]
    if not SANITIZED:
        tests.append(("beside ib_write_bw -R", beside_perftest))
    return tests
