#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
--qp on this host, which has no RDMA device (the guest runs UC itself:
tests/vm/guest_qp.py): what is refused before anything connects, exit 2
and one line: a transport without queue pairs, an operation UC lacks, a
type rdmaperf does not run, a misspelt one, --qp on the server, UD's
operations other than send and a UD size over the largest MTU (a sweep's
largest point); and -x all with --qp uc keeps the transports that have
queue pairs, here none.
--srq too: a transport without shared receive queues, an operation that
takes no receives, --bidir, UC, a size out of range; the guest runs it
(tests/vm/guest_srq.py).

    python3 tests/e2e/qp.py /path/to/rdmaperf
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import check, main, run, usage_error  # noqa: E402

C = ["-c", "-a", "127.0.0.1", "-C", "10"]


def test_refused(binary):
    usage_error(binary, C + ["-x", "tcp", "--qp", "uc"],
                "--qp uc: tcp has no queue pairs")
    usage_error(binary, C + ["-x", "rdma,rsocket", "--qp", "uc"],
                "--qp uc: rsocket has no queue pairs; the rdma transport")
    for op in ("read", "fetch_add", "cmp_swap"):
        usage_error(binary, C + ["-x", "rdma", "--qp", "uc", "-o", op],
                    "--qp uc: UC has no %s" % op)
    usage_error(binary, C + ["-x", "rdma", "--qp", "xrc"],
                "--qp xrc: not built")
    usage_error(binary, C + ["-x", "rdma", "--qp", "RC"],
                "--qp: RC: one of rc, uc, ud")
    for op in ("write", "read", "write_imm", "fetch_add"):
        usage_error(binary, C + ["-x", "rdma", "--qp", "ud", "-o", op],
                    "--qp ud: UD has no %s" % op)
    usage_error(binary, C + ["-x", "rdma", "--qp", "ud", "-o", "send",
                             "--bidir"], "--qp ud: one direction")
    usage_error(binary, C + ["-x", "tcp", "--qp", "ud", "-o", "send"],
                "--qp ud: tcp has no queue pairs")
    # one packet: over the largest MTU here, over the path's in the guest
    usage_error(binary, C + ["-x", "rdma", "--qp", "ud", "-o", "send",
                             "-S", "8K"], "over the largest MTU, 4096")
    usage_error(binary, C + ["-x", "rdma", "--qp", "ud", "-o", "send",
                             "-S", "1K,64K"], "65536 bytes is over")
    usage_error(binary, ["-s", "--qp", "uc"], "--qp is the client's")
    # rc is the default, and said explicitly changes nothing
    r = run(binary, ["--loopback", "-x", "tcp", "--qp", "rc", "-S", "64",
                     "-C", "100", "--json"])
    check(r.rc == 0 and '"qp"' not in r.out,
          lambda: "--qp rc with tcp:\n" + r.describe())


def test_srq_refused(binary):
    usage_error(binary, C + ["-x", "tcp", "-o", "send", "--srq"],
                "--srq: tcp has no shared receive queues")
    for op in ("write", "read", "fetch_add"):
        usage_error(binary, C + ["-x", "rdma", "-o", op, "--srq"],
                    "--srq: %s takes no receives" % op)
    usage_error(binary, C + ["-x", "rdma", "-o", "send", "--srq",
                             "--bidir"], "--srq: the server's responders")
    usage_error(binary, C + ["-x", "rdma", "-o", "send", "--srq", "--qp",
                             "uc"], "--srq: on rc queue pairs")
    usage_error(binary, C + ["-x", "rdma", "-o", "send", "--srq-size",
                             "1"], "--srq-size")
    usage_error(binary, C + ["-x", "rdma", "-o", "send", "--srq-size",
                             "70000"], "--srq-size")
    usage_error(binary, ["-s", "--srq"], "--srq is the client's")


def test_all(binary):
    """-x all --qp uc: only rdma has queue pairs; without a device here
    nothing is left, which is a runtime failure (exit 1), not a crash."""
    r = run(binary, C + ["-x", "all", "--qp", "uc"])
    have_rdma = os.path.isdir("/sys/class/infiniband") and \
        os.listdir("/sys/class/infiniband")
    if have_rdma:
        check(r.rc in (0, 1), lambda: r.describe())
    else:
        check(r.rc == 1 and "-x all: no transport on this host can do "
              "write on UC queue pairs" in r.err, lambda: r.describe())


if __name__ == "__main__":
    main([("refused", test_refused), ("srq_refused", test_srq_refused),
          ("all", test_all)])
