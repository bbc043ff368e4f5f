# SPDX-License-Identifier: MIT
"""
The vm.fabric "ud loss" case (fabric_tests.py): --qp ud across a wire
that drops 5% of guest 1's packets (netem on its NIC: the client's sends
and pings; the server's echoes pass). UD is never resent, so what is lost
must come out as a figure and never as a hang or a failure:

  - the run succeeds, every message that arrived verified (payload, length
    and rising sequence numbers: a gap is loss, not an error);
  - loss.sent is the client's count, loss.arrived the server's, and what
    was lost is between 1% and 12% of what was sent (5% asked; 2000
    messages at --rate 3000, so that the responder keeps up: the chance
    of falling outside is below one in a million);
  - some pings were lost (200 of them at 5%: none lost is a chance of
    3.5e-5) and each costs its 200 ms, not a stall;
  - guest 2's rxe received fewer packets than guest 1's sent, and no
    requester counter of a resend moved.
"""
from e2elib import check, log  # noqa: E402

UD_ITERS = 2000
UD_PINGS = 200
# Paced: unpaced, the sender outruns the responder on these emulated
# guests and rxe drops what finds no receive posted (151 lost where netem
# dropped 106 packets, one run): loss too, but not the wire's.
UD_RATE = 3000


def ud_loss_case(c):
    fab = c.fab
    fab.netem(1, "loss 5%")
    try:
        before = [fab.hw_counters(g) for g in (1, 2)]
        doc, _ = c.client("-x rdma --qp ud -o send -S 1024 -q 16 -C %d "
                          "--rate %d --verify --warmup 10 "
                          "--lat-iterations %d" %
                          (UD_ITERS, UD_RATE, UD_PINGS))
        after = [fab.hw_counters(g) for g in (1, 2)]
    finally:
        fab.clear(1)
    check(doc["error"] is None, "error %r" % doc["error"])
    res = doc["results"][0]
    loss = res.get("loss") or {}
    check(res["ok"] and res.get("qp") == "ud" and
          res["messages"] == UD_ITERS and loss.get("sent") == UD_ITERS,
          "ud: %r" % {k: res.get(k) for k in ("ok", "qp", "messages",
                                              "loss")})
    for side in ("client", "server"):
        check(res["cpu"][side]["verify_errors"] == 0,
              "ud: %s verify errors" % side)
    lost, srv = loss["lost"], res["cpu"]["server"]["messages"]
    check(loss["arrived"] == srv and lost == UD_ITERS - srv and
          0.01 * UD_ITERS <= lost <= 0.12 * UD_ITERS,
          "ud loss 5%%: %r, the server counted %d" % (loss, srv))
    check(loss["pings"] == UD_PINGS and 0 < loss["pings_lost"] < UD_PINGS,
          "ud pings: %r" % loss)
    check(res["latency_unloaded"]["count"] ==
          UD_PINGS - loss["pings_lost"],
          "ud: %d latency samples, %d pings answered" %
          (res["latency_unloaded"]["count"],
           UD_PINGS - loss["pings_lost"]))
    d = [{k: after[i][k] - before[i].get(k, 0) for k in after[i]}
         for i in (0, 1)]
    sent, got = d[0].get("sent_pkts", 0), d[1].get("rcvd_pkts", 0)
    resent = d[0].get("rcvd_seq_err", 0) + d[0].get("completer_retry_err", 0)
    log("  ud, loss 5%%: %d of %d sends arrived (%d lost, %.1f %%), %d of "
        "%d pings lost, %.3f Gb/s sent; guest 1 sent %d packets, guest 2 "
        "received %d" %
        (loss["arrived"], UD_ITERS, lost, 100.0 * loss["ratio"],
         loss["pings_lost"], UD_PINGS,
         res["throughput"]["bits_per_second"] / 1e9, sent, got))
    check(got < sent and resent == 0,
          "ud: guest 1 sent %d packets, guest 2 received %d, resends %d"
          % (sent, got, resent))
