#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
--tos (and --tclass, the same option) on tcp, checked on the wire: in a
network namespace of its own, tcpdump captures a --loopback test, and every
data packet of both directions carries the DSCP asked for, over IPv4
(IP_TOS) and IPv6 (IPV6_TCLASS), while the control connection's carry 0.
Without --tos the data packets carry 0 too (the check can fail). The JSON
has "tos" in the config and the result, the text a "marking" line, and a
kernel that keeps TCP's ECN bits its own is said in a note. Bad values,
transports that cannot mark and a server given --tos: exit 2, one line.

Needs root, ip(8) and tcpdump for the wire (exit 77 says why it skipped
that part; under CI=true that is a failure).

    python3 tests/e2e/tos.py /path/to/rdmaperf
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (QUICK, check, log, main_or_skip, run,  # noqa: E402
                    usage_error)

AF41 = 34 << 2  # 0x88
FLOW = ["-x", "tcp", "-S", "16K", "-C", "400", "-q", "4", "-P", "2"] + QUICK
SKIPPED = []


def why_no_wire():
    if os.geteuid() != 0:
        return "needs root for a network namespace"
    for tool in ("ip", "tcpdump"):
        if not shutil.which(tool):
            return "needs %s" % tool
    return None


def packets(pcap):
    """(tos, sport, dport, payload) of each TCP packet in @pcap, a
    capture on a Linux loopback (Ethernet framing, zero addresses)."""
    with open(pcap, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    check(magic in (0xa1b2c3d4, 0xa1b23c4d), "pcap magic 0x%08x" % magic)
    out, off = [], 24
    while off + 16 <= len(data):
        caplen = struct.unpack("<I", data[off + 8:off + 12])[0]
        pkt = data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        etype = struct.unpack("!H", pkt[12:14])[0]
        ip = pkt[14:]
        if etype == 0x0800:
            tos, hl = ip[1], (ip[0] & 15) * 4
            total = struct.unpack("!H", ip[2:4])[0]
            tcp = ip[hl:]
            payload = total - hl - (tcp[12] >> 4) * 4
        elif etype == 0x86dd:
            tos = ((ip[0] & 15) << 4) | (ip[1] >> 4)
            tcp = ip[40:]
            payload = struct.unpack("!H", ip[4:6])[0] - (tcp[12] >> 4) * 4
        else:
            continue
        sport, dport = struct.unpack("!HH", tcp[:4])
        out.append((tos, sport, dport, payload))
    return out


class Netns:
    def __init__(self):
        self.name = "rptos%d" % os.getpid()

    def __enter__(self):
        subprocess.run(["ip", "netns", "add", self.name], check=True)
        subprocess.run(["ip", "-n", self.name, "link", "set", "lo", "up"],
                       check=True)
        return self

    def __exit__(self, *exc):
        subprocess.run(["ip", "netns", "del", self.name],
                       capture_output=True)

    def prefix(self):
        return ["ip", "netns", "exec", self.name]


def captured(binary, addr, args):
    """A --loopback test on @addr inside a namespace, captured whole:
    (its Run, the packets)."""
    with Netns() as ns, tempfile.TemporaryDirectory() as tmp:
        pcap = os.path.join(tmp, "tos.pcap")
        dump = subprocess.Popen(
            ns.prefix() + ["tcpdump", "-i", "lo", "-nn", "-U", "-s", "128",
                           "-w", pcap, "tcp"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            line = dump.stderr.readline()  # "listening on lo, ..."
            check("listening" in line, "tcpdump: %r" % line)
            r = run(ns.prefix() + [binary], ["--loopback", "-a", addr] +
                    args)
            time.sleep(0.3)  # -U: what it captured is in the file
        finally:
            dump.terminate()
            dump.wait(timeout=10)
        check(r.rc == 0, lambda: r.describe())
        return r, packets(pcap)


def split(pkts):
    """The data connections' packets and the control connection's: the
    first captured (--loopback takes an ephemeral control port, and the
    control connection opens before any data connection)."""
    check(pkts, "nothing captured")
    first = {pkts[0][1], pkts[0][2]}
    data = [p for p in pkts if {p[1], p[2]} != first]
    ctl = [p for p in pkts if {p[1], p[2]} == first]
    return data, ctl


def check_marked(pkts, tos, what):
    data, ctl = split(pkts)
    check(len(data) >= 100 and ctl,
          "%s: %d data packets, %d control ones captured" %
          (what, len(data), len(ctl)))
    # the two directions: from the data listener's port (the server's
    # end of every data connection, the port they all share) and to it
    conns = {frozenset((p[1], p[2])) for p in data}
    common = set.intersection(*(set(c) for c in conns))
    check(len(common) == 1, "%s: data connections %r" % (what, conns))
    listener = common.pop()
    ways = {}
    for p in data:
        ways.setdefault(p[1] == listener, []).append(p)
    check(len(ways) == 2, "%s: packets in %d direction(s)" % (what, len(ways)))
    for way, ps in ways.items():
        dscp = sorted(set(p[0] >> 2 for p in ps))
        check(dscp == [tos >> 2],
              "%s: %s packets carry DSCP %r, want %d" %
              (what, "the server's" if way else "the client's", dscp,
               tos >> 2))
    cdscp = sorted(set(p[0] >> 2 for p in ctl))
    check(cdscp == [0], "%s: the control connection carries DSCP %r, "
          "want 0 (not marked)" % (what, cdscp))
    log("  %s: %d data packets, each way DSCP %d; %d control ones DSCP 0" %
        (what, len(data), tos >> 2, len(ctl)))


def test_wire(binary):
    why = why_no_wire()
    if why:
        check(os.environ.get("CI") != "true", "CI: " + why)
        SKIPPED.append("wire: " + why)
        log("  skipped: " + why)
        return
    r, pk = captured(binary, "127.0.0.1", FLOW)
    data, _ = split(pk)
    check(data and all(p[0] == 0 for p in data),
          "no --tos: data packets carry TOS %r, want 0" %
          sorted(set(p[0] for p in data)))
    for addr, flag in (("127.0.0.1", "--tos"), ("::1", "--tclass")):
        r, pk = captured(binary, addr, FLOW + [flag, "af41", "--json"])
        check_marked(pk, AF41, "%s %s af41" % (addr, flag))
        doc = json.loads(r.out)
        check(doc["config"].get("tos") == AF41 and
              doc["results"][0].get("tos") == AF41,
              "JSON tos: config %r, result %r" %
              (doc["config"].get("tos"), doc["results"][0].get("tos")))


def test_text_and_ecn(binary):
    """The text's line; ECN bits asked for on TCP: Linux keeps its own,
    and a note says what it marks."""
    r = run(binary, ["--loopback", "-a", "127.0.0.1"] + FLOW +
            ["--tos", "0x8b"])
    check(r.rc == 0, lambda: r.describe())
    want = "  marking      TOS 0x8b (DSCP 34 af41, ECN 3) on both ends' " \
        "data traffic"
    check(want in r.out.splitlines(), lambda: "no %r\n%s" %
          (want, r.describe()))
    check("TOS 0x8b asked, the kernel marks 0x88" in r.err,
          lambda: "no note of the kernel's ECN\n" + r.describe())
    r = run(binary, ["--loopback", "-a", "127.0.0.1"] + FLOW +
            ["--tos", "ef"])
    check("TOS 0xb8 (DSCP 46 ef, ECN 0)" in r.out and "asked" not in r.err,
          lambda: r.describe())


def test_bad(binary):
    c = ["-c", "-a", "127.0.0.1", "-p", "1"]
    for v in ("256", "-1", "af44", "cs8", "0x", "", "1e2", "0x100"):
        usage_error(binary, c + ["--tos", v], "--tos: %s: a TOS byte" % v)
    usage_error(binary, c + ["-x", "rsocket", "--tos", "1"],
                "--tos: rsocket cannot mark its data traffic")
    usage_error(binary, c + ["-x", "tcp,rsocket", "--tclass", "8"],
                "--tos: rsocket cannot mark")
    usage_error(binary, ["-s", "--tos", "8"], "--tos")


def test_bad_path(binary):
    """--sl, --flow-label and --mtu: rdma alone, in range, decimal or 0x
    hex (an MTU a power of two, 256 to 4096, not for UD); the server takes
    them from the spec, not its command line."""
    c = ["-c", "-a", "127.0.0.1", "-p", "1"]
    for v in ("16", "-1", "x", ""):
        usage_error(binary, c + ["--sl", v], "--sl")
    for v in ("0x100000", "1048576", "-1", "0x", "12a", "", " 1"):
        usage_error(binary, c + ["--flow-label", v],
                    "--flow-label: %s: a flow label, 0 to 1048575" % v)
    for t in ("tcp", "rsocket", "tcp,rdma"):
        name = t.split(",")[0]
        usage_error(binary, c + ["-x", t, "--sl", "3"],
                    "--sl: %s has no queue pairs to set it in" % name)
        usage_error(binary, c + ["-x", t, "--flow-label", "0x12345"],
                    "--flow-label: %s has no queue pairs" % name)
    usage_error(binary, ["-s", "--sl", "3"], "--sl")
    for v in ("300", "128", "8192", "1000", "x"):
        usage_error(binary, c + ["--mtu", v],
                    "--mtu: %s: a path MTU, 256, 512, 1024, 2048 or 4096" %
                    v)
    usage_error(binary, c + ["-x", "tcp", "--mtu", "1024"],
                "--mtu: tcp has no queue pairs")
    usage_error(binary, c + ["-x", "rdma", "--qp", "ud", "-o", "send", "-S",
                             "512", "--mtu", "1024"],
                "--mtu with --qp ud: a datagram is one packet")


if __name__ == "__main__":
    main_or_skip([("bad", test_bad), ("bad_path", test_bad_path),
                  ("text_and_ecn", test_text_and_ecn),
                  ("wire", test_wire)], SKIPPED)
