# SPDX-License-Identifier: MIT
"""
-x ofi:verbs in the guest (libfabric's verbs provider on Soft-RoCE), a part
of the transports group (guest_tests.py): every op with --verify as
--ep-type auto takes it (verbs' own connected FI_EP_MSG endpoints, an RC
queue pair, for write, read and send; verbs;ofi_rxm's FI_EP_RDM for
write_imm, whose remote CQ data verbs' MSG endpoints give only to posted
receives, and for the atomics, which verbs' MSG endpoints get wrong), the
same three on FI_EP_RDM, the MSG atomics refused with why, send as tagged
messages, two streams over two threads both ways, --wait event; each
result names the provider, the endpoint type, rxe0 and the
FI_UNIVERSE_SIZE rdmaperf set.
Before rdmaperf set FI_UNIVERSE_SIZE, every endpoint failed fi_enable here
(libfabric's default universe of 256 sized ofi_rxm's completion queue
beyond rxe's 32767 entries).

Each ofi_rxm endpoint allocates about 34 MB of buffers (two pools of 1024
buffers of FI_OFI_RXM_BUFFER_SIZE, 16 KiB): the runs here keep to eight
endpoints in all, which the 512 MiB guest holds beside the server.
"""
import os

from e2elib import built_with, check, log, run  # noqa: E402

ADDR = os.environ.get("RP_VM_ADDR", "10.77.0.1")

# --ep-type auto's choice per op, and the provider that names
AUTO = {"write": "msg", "read": "msg", "send": "msg", "write_imm": "rdm",
        "fetch_add": "rdm", "cmp_swap": "rdm"}
PROVIDER = {"msg": "verbs", "rdm": "verbs;ofi_rxm"}


def facts(r, what, ep="rdm"):
    for side in ("client_transport", "server_transport"):
        t = r.get(side, {})
        check(t.get("provider") == PROVIDER[ep] and
              t.get("domain") == "rxe0" and
              t.get("ep_type") == "FI_EP_" + ep.upper() and
              t.get("universe") == "16",
              "%s: %s is %r" % (what, side, t))
    for side in ("client", "server"):
        v = r["cpu"][side].get("verify_errors")
        check(v == 0, "%s: %s verify_errors %r" % (what, side, v))


def ofi_cases(binary, client_json, check_result, quick):
    """(name, fn(binary, server)) for the group; none where this rdmaperf
    has no ofi transport (CI builds it: e2e.ofi fails there without)."""
    if not built_with(binary, "ofi"):
        log("  (ofi: this rdmaperf was built without libfabric: no cases)")
        return []

    def op_case(b, s, op, ep=None):
        size = 8 if op in ("fetch_add", "cmp_swap") else 4096
        doc = client_json(b, s.port, ["-x", "ofi:verbs", "-o", op, "-S",
                                      str(size), "-q", "8", "-C", "300",
                                      "--verify"] +
                          (["--ep-type", ep] if ep else []) + quick)
        r = doc["results"][0]
        check_result(r, "ofi:verbs", op, size, 8, 300, True)
        facts(r, op, ep or AUTO[op])

    def msg_atomics_refused(b, s):
        r = run(b, ["-c", "-a", ADDR, "--port", str(s.port), "-x",
                    "ofi:verbs", "--ep-type", "msg", "-o", "fetch_add",
                    "-C", "10"])
        check(r.rc == 2 and "FI_EP_MSG atomics are wrong" in r.err and
              "--ep-type rdm" in r.err, r.describe())

    def streams_bidir(b, s):
        doc = client_json(b, s.port, ["-x", "ofi:verbs", "-o", "write", "-S",
                                      "4096", "-q", "8", "-C", "300", "-P",
                                      "2", "-T", "2", "--bidir", "--verify"] +
                          quick)
        r = doc["results"][0]
        check(r["ok"] and r["bidir"] and len(r["per_stream"]) == 4,
              "want 4 streams, ok: %r" % {k: r.get(k) for k in
                                          ("ok", "bidir", "streams")})
        d = r["directions"]
        check(d["client_to_server"]["messages"] == 600 and
              d["server_to_client"]["messages"] == 600,
              "directions %r" % d)
        facts(r, "-P 2 -T 2 --bidir", "msg")

    def event(b, s):
        doc = client_json(b, s.port, ["-x", "ofi:verbs", "-o", "send", "-S",
                                      "64", "-q", "4", "-C", "300", "--wait",
                                      "event", "--verify"] + quick)
        r = doc["results"][0]
        check_result(r, "ofi:verbs", "send", 64, 4, 300, True)
        check(doc["config"]["wait"] == "event", "wait %r" %
              doc["config"]["wait"])
        log("  ofi:verbs send 64 B --wait event: unloaded p50 %.1f us" %
            r["latency_unloaded"]["p50"])

    def tagged(b, s):
        doc = client_json(b, s.port, ["-x", "ofi:verbs", "-o", "send",
                                      "--tagged", "-S", "4096", "-q", "8",
                                      "-C", "300", "--verify"] + quick)
        r = doc["results"][0]
        check_result(r, "ofi:verbs", "send", 4096, 8, 300, True)
        check(r.get("tagged") is True, "tagged %r" % r.get("tagged"))
        facts(r, "send --tagged")

    tests = [("ofi:verbs %s --verify (%s)" % (op, AUTO[op]),
              lambda b, s, o=op: op_case(b, s, o)) for op in AUTO]
    tests += [("ofi:verbs %s --ep-type rdm --verify" % op,
               lambda b, s, o=op: op_case(b, s, o, "rdm"))
              for op in ("write", "read", "send")]
    tests.append(("ofi:verbs --ep-type msg fetch_add refused",
                  msg_atomics_refused))
    tests.append(("ofi:verbs send --tagged --verify", tagged))
    tests.append(("ofi:verbs -P 2 -T 2 --bidir", streams_bidir))
    tests.append(("ofi:verbs --wait event", event))
    return tests
