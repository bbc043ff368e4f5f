# SPDX-License-Identifier: MIT
"""
--qp uc on Soft-RoCE, a part of the verbs_ops group (guest_tests.py):
every operation UC has (write, write_imm, send) at depths 1 and 16 with
--verify, the result and the configuration saying "uc", the server
counting every send and write_imm (UC sends are paced by the receiver's
credits, as iWARP's: nothing is lost on a lossless link); two streams
under --wait event; the text naming the queue pairs; an operation UC lacks
refused before anything connects.

--qp ud too: send at 2 bytes and at the MTU, depths 1 and 16, --verify;
the result's "loss" consistent with both sides' counts (a datagram may be
dropped on one host too, where the responder falls behind: loss is a
figure, not a failure); two streams under --wait event; a size over the
MTU and an operation UD lacks refused before anything connects, naming
the MTU or the operation; the text's "queue pairs" and "loss" lines.

--sl and --flow-label on RC (write, read, fetch_add over two streams under
--wait event, send with --srq), UC and UD with --verify: the result names
them, both ends' queue pairs hold the flow label (read back), the SL as
rxe keeps it (it does not: a note); --mtu 512 and 256 (RC, UC): both
ends' path MTU; one over the port's active MTU refused; the text's "path"
line; a test that asks for none reports the path rdma_cm gave.
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

    def ud_loss(r, streams=1):
        loss = r.get("loss") or {}
        sent = r["messages"]
        check(loss.get("sent") == sent and 0 < loss["arrived"] <= sent and
              loss["lost"] == sent - loss["arrived"] and
              loss["arrived"] == r["cpu"]["server"]["messages"] and
              loss.get("pings_lost", -1) >= 0 and
              loss.get("ping_timeout_ms") == 200,
              "ud loss %r, client %d, server %r" %
              (loss, sent, r["cpu"]["server"]["messages"]))
        for side in ("client", "server"):
            check(r["cpu"][side]["verify_errors"] == 0,
                  "ud: %s verify errors" % side)

    def ud_case(b, s, size, depth):
        doc = client_json(b, s.port, ["-x", "rdma", "--qp", "ud", "-o",
                                      "send", "-S", str(size), "-q",
                                      str(depth), "-C", "1000",
                                      "--verify"] + quick)
        r = doc["results"][0]
        check(r["ok"] and r.get("qp") == "ud" and r["size"] == size and
              doc["config"].get("qp") == "ud",
              "ud result %r" % {k: r.get(k) for k in ("ok", "qp", "size")})
        ud_loss(r)

    def ud_streams_event(b, s):
        doc = client_json(b, s.port, ["-x", "rdma", "--qp", "ud", "-o",
                                      "send", "-S", "512", "-q", "16", "-C",
                                      "1000", "-P", "2", "--wait", "event",
                                      "--verify"] + quick)
        ud_loss(doc["results"][0])

    def ud_text_and_refusals(b, s):
        t = run(b, ["-c", "-a", addr, "-p", s.port, "-x", "rdma", "--qp",
                    "ud", "-o", "send", "-S", "64", "-C", "200"] + quick,
                timeout=timeout)
        check(t.rc == 0 and "queue pairs  UD (unreliable datagram)" in t.out
              and "  loss         " in t.out and "messages sent did not "
              "arrive" in t.out, lambda: t.describe())
        r = run(b, ["-c", "-a", addr, "-p", s.port, "-x", "rdma", "--qp",
                    "ud", "-o", "send", "-S", "2048", "-C", "10"],
                timeout=timeout)
        check(r.rc == 2 and "over the path MTU of 1024 bytes (device rxe0"
              in r.err, lambda: r.describe())
        r = run(b, ["-c", "-a", addr, "-p", s.port, "-x", "rdma", "--qp",
                    "ud", "-o", "write", "-C", "10"], timeout=timeout)
        check(r.rc == 2 and "--qp ud: UD has no write" in r.err,
              lambda: r.describe())

    def path_case(b, s, qp, op, sl, fl, extra=(), mtu=0):
        """--sl and --flow-label: in the result; the flow label in what
        both ends' queue pairs hold (ibv_query_qp), the SL as rxe keeps it
        (none: it reads back 0, and a note says so); UD: the client's
        address handle."""
        args = ["-x", "rdma", "--qp", qp, "-o", op, "-S",
                "1024" if qp == "ud" else "4096", "-q", "8", "-C", "500",
                "--verify"] + (["--sl", str(sl)] if sl else []) + \
            (["--flow-label", hex(fl)] if fl else []) + \
            (["--mtu", str(mtu)] if mtu else []) + list(extra) + quick
        doc = client_json(b, s.port, args)
        r = doc["results"][0]
        check(r["ok"] and r.get("sl") == (sl or None) and
              r.get("flow_label") == (fl or None) and
              doc["config"].get("sl") == (sl or None) and
              r.get("path_mtu") == (mtu or None),
              "result %r" % {k: r.get(k) for k in ("ok", "sl", "flow_label",
                                                    "error")})
        sides = ("client",) if qp == "ud" else ("client", "server")
        for side in sides:
            p = r["%s_transport" % side].get("qp_path") or {}
            check(p.get("from") == ("address handle" if qp == "ud" else
                                    "queue pair") and
                  (not fl or p.get("flow_label") == fl) and
                  (not mtu or r["%s_transport" % side].get("mtu") == mtu),
                  "%s path %r, mtu %r; asked flow label %r, mtu %r" %
                  (side, p, r["%s_transport" % side].get("mtu"), fl, mtu))
            if qp == "ud":  # the handle's attributes, as made
                check(p.get("sl") == sl, "ud path %r" % p)
            elif sl and p.get("sl") != sl:
                check("--sl %d: the queue pair holds SL %d" %
                      (sl, p["sl"]) in r["notes"], "notes %r" % r["notes"])
        for side in ("client", "server"):
            check(r["cpu"][side]["verify_errors"] == 0, side + " verify")

    def path_mtu_refused(b, s):
        r = run(b, ["-c", "-a", addr, "-p", s.port, "-x", "rdma", "--mtu",
                    "4096", "-o", "write", "-C", "10"], timeout=timeout)
        check(r.rc == 2 and "--mtu 4096: over device rxe0 port 1's active "
              "MTU of 1024 bytes" in r.err and r.err.count("\n") == 1,
              lambda: r.describe())

    def path_text_and_default(b, s):
        t = run(b, ["-c", "-a", addr, "-p", s.port, "-x", "rdma", "-o",
                    "write", "-S", "64", "-C", "200", "--sl", "3",
                    "--flow-label", "0x12345"] + quick, timeout=timeout)
        check(t.rc == 0 and "  path         SL 3, flow label 0x12345 "
              "asked; the client's queue pair holds SL " in t.out and
              "flow label 0x12345, MTU 1024, the server's SL " in t.out,
              lambda: t.describe())
        doc = client_json(b, s.port, ["-x", "rdma", "-o", "write", "-S",
                                      "64", "-C", "200"] + quick)
        r = doc["results"][0]
        check("sl" not in r and "flow_label" not in r and
              all(r["%s_transport" % x].get("qp_path", {}).get("from") ==
                  "queue pair" for x in ("client", "server")),
              "unasked: %r" % {k: r.get(k) for k in
                               ("sl", "client_transport")})

    tests = [("uc %s q%d --verify" % (op, d),
              lambda b, s, o=op, d=d: op_case(b, s, o, d))
             for op in UC_OPS for d in (1, 16)]
    tests += [("uc send -P 2 --wait event --verify", streams_event),
              ("uc text; read refused", text_and_refusal)]
    tests += [("ud send %d B q%d --verify" % (size, d),
               lambda b, s, z=size, d=d: ud_case(b, s, z, d))
              for size in (2, 1024) for d in (1, 16)]
    tests += [("ud send -P 2 --wait event --verify", ud_streams_event),
              ("ud text; over the MTU and write refused",
               ud_text_and_refusals)]
    tests += [("--sl --flow-label rc write", lambda b, s: path_case(
                   b, s, "rc", "write", 3, 0x12345)),
              ("--sl rc read", lambda b, s: path_case(b, s, "rc", "read",
                                                      5, 0)),
              ("--flow-label rc fetch_add -P 2 --wait event",
               lambda b, s: path_case(b, s, "rc", "fetch_add", 0, 777,
                                      ("-P", "2", "--wait", "event"))),
              ("--sl --flow-label rc send --srq", lambda b, s: path_case(
                  b, s, "rc", "send", 2, 0xabcde, ("--srq",))),
              ("--sl --flow-label uc write_imm", lambda b, s: path_case(
                  b, s, "uc", "write_imm", 2, 0xfffff)),
              ("--mtu 512 rc write", lambda b, s: path_case(
                  b, s, "rc", "write", 0, 0, mtu=512)),
              ("--mtu 256 uc send --flow-label", lambda b, s: path_case(
                  b, s, "uc", "send", 0, 5, mtu=256)),
              ("--mtu over the port's refused", path_mtu_refused),
              ("--sl --flow-label ud send", lambda b, s: path_case(
                  b, s, "ud", "send", 4, 99)),
              ("--sl text; the path unasked", path_text_and_default)]
    return tests
