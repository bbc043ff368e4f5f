#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
End to end: the ofi transport (libfabric) on loopback, with the providers
this host has: ofi:tcp on both endpoint types (tcp's own connected
FI_EP_MSG, and tcp;ofi_rxm's reliable datagrams, FI_EP_RDM) and ofi:shm
(shared memory, FI_EP_RDM). Every operation each grants, with --verify at
depths 1 and 16 (one sweep each); --ep-type auto's choice per operation;
the result naming the provider, its version, the endpoint type, fabric,
domain and mr_mode in JSON and text; a size sweep, -P 4 -T 2, --bidir,
--wait event, --rate, -i intervals with a plot; what is refused before
anything runs (exit 2, one line): an absent provider (listing those
libfabric finds), a domain the provider lacks, --wait event where the
provider's CQ has no FD to wait on, an endpoint type or an operation on it
that the provider lacks.

    python3 tests/e2e/ofi.py /path/to/rdmaperf

Skipped (77) when the binary was built without libfabric, except under
CI=true, where scripts/install-deps.sh installs it.
"""
import os
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (QUICK, LoudServer, Server, check, client,  # noqa
                    client_json, log, main, run, spec_body, usage_error)
from faults_wire import RawSession  # noqa: E402

OPS = ["write", "read", "send", "write_imm", "fetch_add", "cmp_swap"]
MSG_OPS = OPS[:4]  # tcp's FI_EP_MSG: no atomics (ofi_rxm emulates them)
PROVIDERS = {"tcp": "tcp;ofi_rxm", "shm": "shm"}
# (provider, --ep-type, what fi_info calls the provider, the ops)
CASES = [("tcp", "msg", "tcp", MSG_OPS), ("tcp", "rdm", "tcp;ofi_rxm", OPS),
         ("shm", "rdm", "shm", OPS)]
FACTS = ["provider", "provider_version", "libfabric", "ep_type", "fabric",
         "domain", "mr_mode", "universe"]


def check_point(r, what, messages=None):
    check(r.get("error") is None and r.get("ok") is True,
          "%s: failed: %r" % (what, r.get("error")))
    for side in ("client", "server"):
        v = r["cpu"][side].get("verify_errors")
        check(v == 0, "%s: %s verify_errors %r" % (what, side, v))
    if messages is not None:
        check(r["messages"] == messages, "%s: %r messages, not %d" %
              (what, r["messages"], messages))


def check_facts(r, provider, ep, what):
    for side in ("client_transport", "server_transport"):
        t = r.get(side, {})
        for k in FACTS:
            check(isinstance(t.get(k), str) and t[k],
                  "%s: %s.%s is %r" % (what, side, k, t.get(k)))
        check(t["provider"] == provider and
              t["ep_type"] == "FI_EP_" + ep.upper(),
              "%s: %s names %r %r" % (what, side, t["provider"],
                                      t["ep_type"]))


def test_ops_verify(binary):
    """Every op each endpoint type grants, --verify, depths 1 and 16."""
    with Server(binary) as srv:
        for prov, ep, provider, ops in CASES:
            for op in ops:
                what = "ofi:%s %s %s" % (prov, ep, op)
                doc = client_json(binary, srv.port, [
                    "-x", "ofi:" + prov, "--ep-type", ep, "-o", op, "-S",
                    "4096", "-q", "1,16", "-C", "1500", "--verify"] + QUICK)
                check(len(doc["results"]) == 2, what + ": two points")
                for r in doc["results"]:
                    check_point(r, "%s depth %d" % (what, r["queue_depth"]),
                                1500)
                    if op in ("send", "write_imm"):
                        n = r["cpu"]["server"]["messages"]
                        check(n == 1500, "%s: the server saw %r" % (what, n))
                check_facts(doc["results"][0], provider, ep, what)
                check(doc["results"][0]["transport"] == "ofi:" + prov and
                      doc["config"].get("ep_type") == ep and
                      doc["results"][0].get("ep_type") == ep,
                      what + ": transport %r, ep_type %r" %
                      (doc["results"][0]["transport"],
                       doc["config"].get("ep_type")))


def test_ep_auto(binary):
    """--ep-type auto (the default): tcp's own FI_EP_MSG where it grants
    the test, tcp;ofi_rxm's FI_EP_RDM for what only ofi_rxm offers
    (atomics, tagged messages); shm has only FI_EP_RDM. The document leaves
    ep_type out: what ran is in the transport facts."""
    want = [("tcp", ["-o", "write"], "tcp", "msg"),
            ("tcp", ["-o", "send", "-q", "1"], "tcp", "msg"),
            ("tcp", ["-o", "fetch_add"], "tcp;ofi_rxm", "rdm"),
            ("tcp", ["-o", "send", "--tagged"], "tcp;ofi_rxm", "rdm"),
            ("shm", ["-o", "read"], "shm", "rdm")]
    with Server(binary) as srv:
        for prov, args, provider, ep in want:
            what = "auto ofi:%s %s" % (prov, " ".join(args))
            doc = client_json(binary, srv.port, ["-x", "ofi:" + prov, "-S",
                                                 "64", "-C", "300",
                                                 "--verify"] + args + QUICK)
            check_point(doc["results"][0], what, 300)
            check_facts(doc["results"][0], provider, ep, what)
            check("ep_type" not in doc["config"], what + ": config ep_type")


def test_text_names_provider(binary):
    with Server(binary) as srv:
        r = client(binary, srv.port, ["-x", "ofi:tcp", "-S", "64", "-C",
                                      "500"] + QUICK)
        check(r.rc == 0, r.describe())
        check("provider tcp 1" in r.out and "FI_EP_MSG" in r.out and
              "mr_mode" in r.out, "the text names no provider:\n" + r.out)


def test_default_provider(binary):
    """-x ofi: the server's first provider that reaches other hosts."""
    with Server(binary) as srv:
        doc = client_json(binary, srv.port, ["-x", "ofi", "-S", "64", "-C",
                                             "500"] + QUICK)
        r = doc["results"][0]
        check_point(r, "ofi")
        p = r["client_transport"]["provider"]
        check(p != "shm" and p == r["server_transport"]["provider"],
              "-x ofi chose %r" % p)


def test_sweep_streams_bidir(binary):
    with Server(binary) as srv:
        doc = client_json(binary, srv.port, [
            "-x", "ofi:tcp", "-o", "write", "-S", "8,4096,65536", "-C",
            "1000", "--verify"] + QUICK)
        check([r["size"] for r in doc["results"]] == [8, 4096, 65536],
              "sweep sizes")
        for r in doc["results"]:
            check_point(r, "sweep %d" % r["size"], 1000)
        for prov, ep, _, _ in CASES:
            doc = client_json(binary, srv.port, [
                "-x", "ofi:" + prov, "--ep-type", ep, "-o", "send", "-S",
                "1024", "-P", "4", "-T", "2", "-C", "4000", "--verify"] +
                QUICK)
            r = doc["results"][0]
            check_point(r, "-P 4 %s %s" % (prov, ep))
            check(len(r["per_stream"]) == 4, "-P 4: %d per_stream" %
                  len(r["per_stream"]))
            check(r["cpu"]["server"]["messages"] == r["messages"],
                  "-P 4: the server saw %r of %r" %
                  (r["cpu"]["server"]["messages"], r["messages"]))
        for prov, depth in (("shm", "1"), ("shm", "64"), ("tcp", "16")):
            doc = client_json(binary, srv.port, [
                "-x", "ofi:" + prov, "-o", "write_imm", "-S", "4", "-q",
                depth, "--bidir", "-C", "2000", "--verify"] + QUICK)
            r = doc["results"][0]
            check_point(r, "--bidir depth " + depth)
            d = r.get("directions", {})
            check(d.get("client_to_server", {}).get("messages", 0) > 0 and
                  d.get("server_to_client", {}).get("messages", 0) > 0,
                  "--bidir: directions %r" % d)


def test_wait_event(binary):
    """--wait event on tcp;ofi_rxm (an FD wait object) for every op."""
    with Server(binary) as srv:
        for op in OPS:
            doc = client_json(binary, srv.port, [
                "-x", "ofi:tcp", "-o", op, "-S", "512", "-q", "1,8", "-C",
                "500", "--verify", "--wait", "event"] + QUICK)
            for r in doc["results"]:
                check_point(r, "--wait event %s depth %d" %
                            (op, r["queue_depth"]), 500)
                check(r["wait"] == "event", "wait %r" % r["wait"])


def test_rate_intervals_plot(binary):
    with Server(binary) as srv, tempfile.TemporaryDirectory() as d:
        plot = os.path.join(d, "ofi.svg")
        doc = client_json(binary, srv.port, [
            "-x", "ofi:tcp", "-o", "send", "-S", "256", "-t", "2",
            "--rate", "2000", "-i", "0.5", "--plot", plot] + QUICK)
        r = doc["results"][0]
        check_point(r, "--rate")
        got = r["rate"]["achieved_ops_per_second"]
        check(abs(got - 2000) < 200, "--rate 2000 achieved %r" % got)
        check(len(r["intervals"]) >= 3, "-i 0.5 over 2 s: %d intervals" %
              len(r["intervals"]))
        with open(plot) as f:
            check("<svg" in f.read(), "the plot is no SVG")


def refused(binary, port, args, words):
    r = client(binary, port, args)
    check(r.rc == 2, "exit %r, not 2:\n%s" % (r.rc, r.describe()))
    line = [x for x in r.err.splitlines() if x.startswith("rdmaperf:")]
    check(len(line) == 1 and all(w in line[0] for w in words),
          "want one line with %r:\n%s" % (words, r.describe()))


def test_refused(binary):
    with Server(binary) as srv:
        refused(binary, srv.port, ["-x", "ofi:efa", "-C", "10"],
                ["ofi:efa", "no provider efa", "finds:", "tcp;ofi_rxm",
                 "shm"])
        refused(binary, srv.port, ["-x", "ofi:shm", "-o", "send", "--wait",
                                   "event", "-C", "10"],
                ["provider shm", "--wait event", "--wait busy"])
        refused(binary, srv.port, ["-x", "ofi:tcp", "--ofi-domain",
                                   "nosuch0", "-C", "10"],
                ["no domain nosuch0"])
        refused(binary, srv.port, ["-x", "ofi:shm", "--ep-type", "msg",
                                   "-C", "10"],
                ["no provider shm with a connected (msg) endpoint"])
        refused(binary, srv.port, ["-x", "ofi:tcp", "--ep-type", "msg",
                                   "-o", "cmp_swap", "-C", "10"],
                ["provider tcp cannot do cmp_swap on FI_EP_MSG",
                 "it does write, read, send, write_imm"])
    usage_error(binary, ["-c", "-a", "127.0.0.1", "-x", "rdma",
                         "--ep-type", "msg"],
                "--ep-type msg: rdma has no libfabric endpoints")
    usage_error(binary, ["-c", "-a", "127.0.0.1", "-x", "ofi:tcp",
                         "--ep-type", "dgram"],
                "--ep-type: dgram: one of msg, rdm, auto")
    r = run(binary, ["-c", "-a", "127.0.0.1", "-x", "tcp", "--ofi-domain",
                     "lo"])
    check(r.rc == 2 and "add ofi to -x" in r.err, r.describe())
    # -x all never takes ofi: it must name its provider
    with Server(binary) as srv:
        doc = client_json(binary, srv.port, ["-x", "all", "-S", "64", "-C",
                                             "100"] + QUICK)
        got = [x["transport"] for x in doc["results"]]
        check(got and not any(t.startswith("ofi") for t in got),
              "-x all ran %r" % got)


def test_tagged(binary):
    """--tagged: sends as tagged messages on both providers, depths 1 and
    16 and two streams both ways under --wait event (tcp), verified, every
    message counted by the server; the document says tagged; refused with
    a transport that has none and with an op that is not a send."""
    with Server(binary) as srv:
        for prov in PROVIDERS:
            for depth in (1, 16):
                doc = client_json(binary, srv.port, [
                    "-x", "ofi:" + prov, "-o", "send", "--tagged", "-S",
                    "4K", "-q", str(depth), "-C", "1000", "--verify"] + QUICK)
                r = doc["results"][0]
                what = "%s tagged q%d" % (prov, depth)
                check_point(r, what, 1000)
                check(r.get("tagged") is True and
                      doc["config"].get("tagged") is True and
                      r["cpu"]["server"]["messages"] == 1000,
                      "%s: tagged %r, server %r" %
                      (what, r.get("tagged"), r["cpu"]["server"]))
        doc = client_json(binary, srv.port, [
            "-x", "ofi:tcp", "-o", "send", "--tagged", "-S", "64", "-q",
            "8", "-C", "500", "-P", "2", "-T", "2", "--bidir", "--wait",
            "event", "--verify"] + QUICK)
        check_point(doc["results"][0], "tagged -P 2 --bidir --wait event")
        doc = client_json(binary, srv.port, ["-x", "ofi:tcp", "-o", "send",
                                             "-S", "64", "-C", "100"] +
                          QUICK)
        check("tagged" not in doc["results"][0], "untagged says tagged")
    usage_error(binary, ["-c", "-a", "127.0.0.1", "-x", "tcp", "--tagged",
                         "-o", "send"], "--tagged: tcp has no tagged")
    usage_error(binary, ["-c", "-a", "127.0.0.1", "-x", "ofi:tcp",
                         "--tagged", "-o", "write"],
                "--tagged: tagged messages are sends, not write")


def test_msg_strays(binary):
    """FI_EP_MSG's passive endpoint faces the network: a session asks for
    an ofi:tcp --ep-type msg test, gets the port, and strays reach it:
    silent ones, garbage, a flood. The server lives on, and serves a real
    test at once (its port is a new one)."""
    import socket
    with LoudServer(binary) as srv:
        s = RawSession(srv.port, timeout=20)
        socks = []
        try:
            s.hello()
            s.test(spec_body(transport="ofi:tcp", ep_type="msg",
                             streams=2, latency=False))
            for i in range(12):
                c = socket.create_connection(("127.0.0.1", s.data_port), 5)
                if i % 3 == 1:
                    c.sendall(bytes(range(256)) * 4)
                elif i % 3 == 2:
                    c.sendall(b"\xff" * 65536)
                socks.append(c)
            time.sleep(0.5)
        finally:
            for c in socks:
                c.close()
            s.close()
        check(srv.proc.poll() is None, "the server died:\n" + srv.stderr())
        doc = client_json(binary, srv.port, ["-x", "ofi:tcp", "-S", "4K",
                                             "-P", "2", "-C", "500",
                                             "--verify"] + QUICK)
        check_point(doc["results"][0], "a real test after the strays")
        check_facts(doc["results"][0], "tcp", "msg", "after the strays")


def test_memory_budget(binary):
    """--max-memory counts what libfabric takes for each endpoint (ofi_rxm's
    bounce buffers, about 80 MB an endpoint on tcp), not the buffers alone:
    64 KiB of buffers a stream at -P 4 fits 256 MiB over tcp, not ofi:tcp's
    FI_EP_RDM; tcp's own FI_EP_MSG (under 1 MB) and ofi:shm's few MB a
    stream fit."""
    args = ["-S", "4K", "-C", "200", "-P", "4", "--json"] + QUICK
    with Server(binary, ["--max-memory", "256M"]) as srv:
        r = client(binary, srv.port, ["-x", "ofi:tcp", "--ep-type", "rdm"] +
                   args)
        err = r.json().get("error") or {}
        check(r.rc == 1 and err.get("code") == "limit" and
              "transport's library" in err.get("message", "") and
              "256 MiB" in err.get("message", ""),
              lambda: "want a limit error:\n" + r.describe())
        for x in ("tcp", "ofi:shm", "ofi:tcp"):
            doc = client_json(binary, srv.port, ["-x", x] + args)
            check_point(doc["results"][0], x + " within the budget")


if __name__ == "__main__":
    from e2elib import binary_from_argv, built_with
    if not built_with(binary_from_argv(), "ofi"):
        why = "this rdmaperf was built without libfabric (no -x ofi)"
        if os.environ.get("CI") == "true":
            sys.stderr.write("e2e.ofi: %s, and CI needs it\n" % why)
            sys.exit(1)
        log("skip: " + why)
        sys.exit(77)
    main([
        ("ops_verify", test_ops_verify),
        ("ep_auto", test_ep_auto),
        ("text_names_provider", test_text_names_provider),
        ("default_provider", test_default_provider),
        ("sweep_streams_bidir", test_sweep_streams_bidir),
        ("wait_event", test_wait_event),
        ("rate_intervals_plot", test_rate_intervals_plot),
        ("refused", test_refused),
        ("memory_budget", test_memory_budget),
        ("msg_strays", test_msg_strays),
        ("tagged", test_tagged),
    ])
