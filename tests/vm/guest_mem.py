# SPDX-License-Identifier: MIT
"""
--mem on the rdma transport in the guest (Soft-RoCE), a part of the
verbs_ops group (guest_tests.py): every op on huge pages and on a file's
pages with --verify, the file holding what the client's buffers held;
huge pages refused where none is reserved; odp refused before anything
connects with the device's capability bits (this kernel's rxe has no
on-demand paging), or run where it has.
"""
import json
import os
import tempfile

from e2elib import USAGE_LINE, check, log, run  # noqa: E402

NR_HUGE = "/proc/sys/vm/nr_hugepages"
OPS = ("write", "read", "send", "write_imm", "fetch_add", "cmp_swap")


def args_of(port, op, mem):
    size = 8 if op in ("fetch_add", "cmp_swap") else 16384
    addr = os.environ.get("RP_VM_ADDR", "10.77.0.1")
    return ["-c", "-a", addr, "-p", port, "-x", "rdma", "-o", op, "-S",
            size, "-q", "8", "-C", "300", "--verify", "--warmup", "20",
            "--lat-iterations", "50", "--mem", mem, "--json"]


def verified(r, op, kind):
    check(r.rc == 0, lambda: "%s --mem %s:\n%s" % (op, kind, r.describe()))
    res = json.loads(r.out)["results"][0]
    check(res["ok"] and res.get("mem") == kind.split(":")[0],
          "%s: ok %r, mem %r" % (op, res["ok"], res.get("mem")))
    return res


def huge_set(n):
    with open(NR_HUGE, "w") as f:
        f.write("%d\n" % n)


def huge_case(b, s):
    with open(NR_HUGE) as f:
        saved = int(f.read())
    try:
        huge_set(0)
        r = run(b, args_of(s.port, "write", "huge"))
        lines = r.err.splitlines()
        check(r.rc == 2 and len(lines) == 2 and lines[1] == USAGE_LINE and
              "no huge page of" in lines[0], lambda: r.describe())
        huge_set(32)
        for op in OPS:
            res = verified(run(b, args_of(s.port, op, "huge")), op, "huge")
        log("  huge pages: every op verified (cmp_swap %.0f ops/s)" %
            res["throughput"]["messages_per_second"])
    finally:
        huge_set(saved)


def file_case(b, s):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "buffers")
        for op in OPS:
            verified(run(b, args_of(s.port, op, "file:" + path)), op,
                     "file:" + path)
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            data = f.read()
        check(size > 0 and data.count(0) < size,
              "the file: %d bytes, all zero" % size)
        log("  a file's pages: every op verified; the file is %d bytes "
            "(each run maps it from its start, a region per stream)" % size)


def odp_case(b, s):
    r = run(b, args_of(s.port, "write", "odp"))
    if r.rc == 0:
        verified(r, "write", "odp")
        log("  odp: this rxe has on-demand paging: write verified")
        return
    # refused before anything connects: exit 2, the reason as the JSON's
    # error (stdout carries the document and nothing else)
    check(r.rc == 2, lambda: r.describe())
    doc = json.loads(r.out)
    why = (doc.get("error") or {}).get("message", "")
    check(doc["error"]["code"] == "unsupported" and
          "--mem odp: device" in why and
          "has no on-demand paging for RC write" in why and
          "rc_odp_caps" in why, lambda: r.describe())
    log("  odp refused: " + why)


def mem_cases():
    return [("--mem huge", huge_case), ("--mem file", file_case),
            ("--mem odp", odp_case)]
