# SPDX-License-Identifier: MIT
"""
The guest group "ofi": the ofi transport on libfabric's verbs provider
(verbs;ofi_rxm, FI_EP_RDM) over the guest's Soft-RoCE device, client and
server on the guest's RDMA address. Every op the provider grants with
--verify at depths 1 and 16 (one sweep each), the result naming the
provider and the device as its domain; -P 4 --bidir; --wait event; an op
the provider refuses, if any, refused with its reason (exit 2).

Run by tests/vm/guest_tests.py (group ofi), inside the guest that
tests/vm/rxe-run boots; skipped (77) where the binary has no libfabric.
"""
import os

from e2elib import check, log, run

OPS = ("write", "read", "send", "write_imm", "fetch_add", "cmp_swap")
QUICK = ["--warmup", "50", "--lat-iterations", "200"]


def _client(b, srv, args):
    addr = os.environ.get("RP_VM_ADDR", "10.77.0.1")
    return run(b, ["-c", "-a", addr, "-p", srv.port, "--json"] + args,
               timeout=180)


def _ok(r, what):
    check(r.rc == 0, lambda: "%s failed:\n%s" % (what, r.describe()))
    doc = r.json()
    for res in doc["results"]:
        check(res["ok"], "%s: %r" % (what, res.get("error")))
        for side in ("client", "server"):
            v = res["cpu"][side]["verify_errors"]
            check(v == 0, "%s: %s verify_errors %r" % (what, side, v))
    return doc


def ops_case(b, srv):
    dev = os.environ.get("RP_VM_DEV", "rxe0")
    refused = []
    for op in OPS:
        size = 8 if op in ("fetch_add", "cmp_swap") else 4096
        r = _client(b, srv, ["-x", "ofi:verbs", "-o", op, "-S", str(size),
                             "-q", "1,16", "-C", "1000", "--verify"] + QUICK)
        if r.rc == 2 and "cannot do %s; it does" % op in r.err:
            refused.append(op)  # the provider's choice, with its reason
            continue
        doc = _ok(r, "ofi:verbs " + op)
        t = doc["results"][0]["client_transport"]
        check(t["provider"].startswith("verbs") and t["domain"] == dev and
              t["ep_type"] == "FI_EP_RDM",
              "ofi:verbs ran on %r %r %r" % (t["provider"], t["domain"],
                                             t["ep_type"]))
    log("  ofi:verbs refused: %s" % (", ".join(refused) or "none"))
    check(len(refused) < len(OPS), "ofi:verbs did no operation at all")


def streams_case(b, srv):
    _ok(_client(b, srv, ["-x", "ofi:verbs", "-o", "write_imm", "-S", "1024",
                         "-P", "4", "-T", "2", "--bidir", "-C", "2000",
                         "--verify"] + QUICK), "ofi:verbs -P 4 --bidir")
    r = _client(b, srv, ["-x", "ofi:verbs", "-o", "send", "-S", "64", "-C",
                         "1000", "--wait", "event", "--verify"] + QUICK)
    if r.rc == 2:  # no FD wait object on this provider: refused, said so
        check("--wait event" in r.err, r.describe())
        log("  ofi:verbs --wait event refused: " + r.err.strip())
    else:
        _ok(r, "ofi:verbs --wait event")


def ofi(binary):
    h = run(binary, ["--help"])
    if " ofi" not in h.out:
        def skip(_b, _srv):
            log("  skip: this rdmaperf was built without libfabric")
        return [("ofi_absent", skip)]
    return [("ofi_ops_verify", ops_case), ("ofi_streams", streams_case)]
