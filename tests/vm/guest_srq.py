# SPDX-License-Identifier: MIT
"""
--srq on Soft-RoCE, a part of the verbs_ops group (guest_tests.py): the
server's responders take their receives from one shared receive queue.

  -P 8 send    with --verify, every message counted by the server; the
               server's transport facts give the SRQ's receives and limit;
               the same test without --srq beside it, both figures logged
               (the comparison the issue asks for; no claim is made of
               them under TCG)
  limit        --srq-size 2 under -P 8 -q 16: 128 sends in flight for 2
               receives, so the queue runs dry and the limit event (armed
               at 1) comes: srq_limit_events > 0 (22 in a try; with 8
               receives the responder kept up and it never came), and
               every message still arrives intact (RC retries "receiver
               not ready")
  write_imm    -P 4 with --verify: write_imm's receives, which take no
               bytes, from the shared queue
"""
from e2elib import check  # noqa: E402


def srq_cases(client_json, check_result, quick, log):
    def facts(r, want_recvs, what):
        t = r.get("server_transport", {})
        q = t.get("srq") or {}
        check(q.get("receives") == want_recvs and
              q.get("limit") == max(1, want_recvs // 16),
              "%s: the server's srq facts %r" % (what, q))
        ev = r["cpu"]["server"].get("srq_limit_events")
        check(isinstance(ev, int) and ev >= 0,
              "%s: srq_limit_events %r" % (what, ev))
        return ev

    def p8(b, s):
        base = ["-x", "rdma", "-o", "send", "-S", "4096", "-q", "16", "-P",
                "8", "-C", "1500", "--verify"] + quick
        got = {}
        for srq in (True, False):
            doc = client_json(b, s.port, base + (["--srq"] if srq else []))
            r = doc["results"][0]
            check(r["ok"] and r["messages"] == 12000 and
                  r["cpu"]["server"]["messages"] == 12000 and
                  r["cpu"]["server"]["verify_errors"] == 0,
                  "-P 8 %s: %r" % ("--srq" if srq else "own queues",
                                   {k: r.get(k) for k in ("ok", "messages",
                                                          "error")}))
            if srq:
                # 8 x 16 + 16 = 144, below what one stream keeps for 4 KiB
                # messages (min(512, 8 MiB / 4 KiB)): 512
                facts(r, 512, "-P 8 --srq")
                check(doc["config"].get("srq") is True and
                      r.get("srq") is True, "srq not in the document")
            else:
                check("srq" not in r.get("server_transport", {}) and
                      "srq_limit_events" not in r["cpu"]["server"],
                      "srq facts without --srq")
            got[srq] = r["throughput"]["bits_per_second"] / 1e9
        log("  -P 8 send 4 KiB: %.3f Gb/s with --srq (512 receives), %.3f "
            "with 8 queues of their own" % (got[True], got[False]))

    def limit(b, s):
        doc = client_json(b, s.port, ["-x", "rdma", "-o", "send", "-S",
                                      "1024", "-q", "16", "-P", "8", "-C",
                                      "400", "--srq-size", "2",
                                      "--no-latency", "--verify"] + quick)
        r = doc["results"][0]
        check(r["ok"] and r["cpu"]["server"]["messages"] == 3200 and
              r["cpu"]["server"]["verify_errors"] == 0,
              "--srq-size 2: %r" % {k: r.get(k) for k in ("ok", "messages",
                                                          "error")})
        ev = facts(r, 2, "--srq-size 2")
        check(ev > 0, "128 sends in flight for 2 receives, and the limit "
              "event never came")
        check(doc["config"].get("srq_size") == 2, "srq_size %r" %
              doc["config"].get("srq_size"))
        log("  --srq-size 2 under -P 8 -q 16: the limit (1) reached %d "
            "times, %.3f Gb/s" % (ev, r["throughput"]["bits_per_second"] /
                                  1e9))

    def write_imm(b, s):
        doc = client_json(b, s.port, ["-x", "rdma", "-o", "write_imm", "-S",
                                      "4096", "-q", "16", "-P", "4", "-C",
                                      "1000", "--srq", "--verify"] + quick)
        r = doc["results"][0]
        check(r["ok"] and r["cpu"]["server"]["messages"] == 4000 and
              r["cpu"]["server"]["verify_errors"] == 0,
              "write_imm --srq: %r" % {k: r.get(k) for k in
                                       ("ok", "messages", "error")})
        facts(r, 512, "write_imm --srq")

    return [("--srq -P 8 send --verify, and without", p8),
            ("--srq-size 2: the limit event", limit),
            ("--srq write_imm -P 4 --verify", write_imm)]
