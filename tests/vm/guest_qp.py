# SPDX-License-Identifier: MIT
"""
--qp uc on Soft-RoCE, a part of the verbs_ops group (guest_tests.py):
every operation UC has (write, write_imm, send) at depths 1 and 16 with
--verify, the result and the configuration saying "uc", the server
counting every send and write_imm (UC sends are paced by the receiver's
credits, as iWARP's: nothing is lost on a lossless link); two streams
under --wait event; the text naming the queue pairs; an operation UC lacks
refused before anything connects.
"""
from e2elib import check, run  # noqa: E402

UC_OPS = ("write", "write_imm", "send")


def qp_cases(addr, client_json, check_result, quick, timeout):
    def op_case(b, s, op, depth):
        doc = client_json(b, s.port, ["-x", "rdma", "--qp", "uc", "-o", op,
                                      "-S", "4096", "-q", str(depth), "-C",
                                      "1000", "--verify"] + quick)
        r = doc["results"][0]
        check_result(r, "rdma", op, 4096, depth, 1000, True)
        check(doc["config"].get("qp") == "uc" and r.get("qp") == "uc",
              "qp %r %r" % (doc["config"].get("qp"), r.get("qp")))

    def streams_event(b, s):
        doc = client_json(b, s.port, ["-x", "rdma", "--qp", "uc", "-o",
                                      "send", "-S", "1024", "-q", "16", "-C",
                                      "1000", "-P", "2", "--wait", "event",
                                      "--verify"] + quick)
        r = doc["results"][0]
        check(r["ok"] and r["messages"] == 2000 and
              r["cpu"]["server"]["messages"] == 2000 and
              r["cpu"]["server"]["verify_errors"] == 0,
              "two UC streams: %r" % {k: r.get(k) for k in
                                      ("ok", "messages", "cpu")})

    def text_and_refusal(b, s):
        t = run(b, ["-c", "-a", addr, "-p", s.port, "-x", "rdma", "--qp",
                    "uc", "-o", "write", "-S", "64", "-C", "200"] + quick,
                timeout=timeout)
        check(t.rc == 0 and "queue pairs  UC (unreliable connected)" in
              t.out, lambda: t.describe())
        r = run(b, ["-c", "-a", addr, "-p", s.port, "-x", "rdma", "--qp",
                    "uc", "-o", "read", "-C", "10"], timeout=timeout)
        check(r.rc == 2 and "--qp uc: UC has no read" in r.err,
              lambda: r.describe())

    tests = [("uc %s q%d --verify" % (op, d),
              lambda b, s, o=op, d=d: op_case(b, s, o, d))
             for op in UC_OPS for d in (1, 16)]
    tests += [("uc send -P 2 --wait event --verify", streams_event),
              ("uc text; read refused", text_and_refusal)]
    return tests
