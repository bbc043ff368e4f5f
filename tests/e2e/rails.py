#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
--rails over tcp, on two rails between two network namespaces of this
host: a client namespace and a server namespace joined by two veth pairs,
each pair its own subnet (rail0: 10.97.0.0/24, rail1: 10.97.1.0/24), each
shaped by tbf on the client's side (the direction the data goes). What
the virtual fabric's two-NIC guests do for rdma (tests/vm/fabric_tests.py,
"rails"), without emulation: the rates are the shaper's.

- Two rails at RATE each carry about RATE, and the aggregate beats one
  rail alone by more than half again.
- One rail shaped to a quarter is named: short in per_rail, "falls short"
  in the text, the other not.
- -P is streams per rail; --rail-map numa pairs them too (no NUMA nodes
  on a veth: the order stays).
- Bad input: a rail named twice, one that does not exist, --rails on a
  transport without it, --rail-map without --rails, and a server with
  fewer rails than the client asks: exit 2 and one line.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import check_json  # noqa: E402
from e2elib import (TestFailure, check, free_port, log, main_or_skip,  # noqa
                    usage_error, wait_listening)

RATE_MBIT = 200
SKIPPED = []


class Rails:
    """The two namespaces and their two shaped links."""

    def __init__(self, rates):
        tag = os.getpid() % 100000
        self.c, self.s = "rprc%d" % tag, "rprs%d" % tag
        self.rates = rates
        self.why = None

    def sh(self, *cmd):
        p = subprocess.run(list(cmd), capture_output=True, text=True)
        if p.returncode and not self.why:
            self.why = "%s: %s" % (" ".join(cmd), p.stderr.strip())
        return p.returncode == 0

    @staticmethod
    def addr(rail, side):
        return "10.97.%d.%d" % (rail, 1 if side == "c" else 2)

    def link(self, r):
        ok = self.sh("ip", "-n", self.c, "link", "add", "rail%d" % r, "type",
                     "veth", "peer", "name", "rail%d" % r, "netns", self.s)
        for ns, side in ((self.c, "c"), (self.s, "s")):
            ok = ok and self.sh("ip", "-n", ns, "addr", "add",
                                self.addr(r, side) + "/24", "dev",
                                "rail%d" % r) and \
                self.sh("ip", "-n", ns, "link", "set", "rail%d" % r, "up")
        return ok and self.sh("tc", "-n", self.c, "qdisc", "add", "dev",
                              "rail%d" % r, "root", "tbf", "rate",
                              "%dmbit" % self.rates[r], "burst", "64kb",
                              "latency", "100ms")

    def __enter__(self):
        if os.geteuid() != 0 or not shutil.which("ip") or \
                not shutil.which("tc"):
            self.why = "needs root, ip(8) and tc(8) for namespaces"
            return self
        ok = self.sh("ip", "netns", "add", self.c) and \
            self.sh("ip", "netns", "add", self.s)
        for ns in (self.c, self.s):
            ok = ok and self.sh("ip", "-n", ns, "link", "set", "lo", "up")
        for r in range(len(self.rates)):
            ok = ok and self.link(r)
        return self

    def __exit__(self, *exc):
        for ns in (self.c, self.s):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    def run(self, ns, binary, args, timeout=120):
        p = subprocess.run(["ip", "netns", "exec", ns, binary] +
                           [str(a) for a in args], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, errors="replace",
                           timeout=timeout)
        return p

    def server(self, binary, port, rails="rail0,rail1"):
        p = subprocess.Popen(["ip", "netns", "exec", self.s, binary, "-s",
                              "-a", self.addr(0, "s"), "-p", str(port),
                              "--rails", rails], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        return p

    def client(self, binary, port, args):
        return self.run(self.c, binary, ["-c", "-a", self.addr(0, "s"),
                                         "-p", port, "-x", "tcp", "-S",
                                         "64K", "-q", "8", "-t", "1.5", "--warmup", "50",
                                         "--no-latency"] + list(args))


def skip_or_fail(why):
    check(os.environ.get("CI") != "true", "CI: " + why)
    SKIPPED.append(why)
    log("  skipped: " + why)


def wait_up(fab, binary, port):
    """The server listens once a client gets through; a few tries."""
    import time
    end = time.monotonic() + 15
    while time.monotonic() < end:
        p = fab.run(fab.c, binary, ["-c", "-a", fab.addr(0, "s"), "-p", port,
                                    "-x", "tcp", "-S", "1K", "-C", "10",
                                    "--no-latency", "--quiet"])
        if p.returncode == 0:
            return
        time.sleep(0.2)
    raise TestFailure("the server in %s never answered: %s" %
                      (fab.s, p.stderr))


def doc_of(p, what):
    check(p.returncode == 0, lambda: "%s: exit %d\n%s\n%s" %
          (what, p.returncode, p.stdout[-3000:], p.stderr[-2000:]))
    doc = json.loads(p.stdout)
    errors = check_json.validate_doc(doc)
    check(not errors, lambda: "%s: schema: %s" % (what, "; ".join(errors[:5])))
    return doc


def with_fabric(rates, fn):
    def test(binary):
        with Rails(rates) as fab:
            if fab.why:
                return skip_or_fail(fab.why)
            port = free_port()
            srv = fab.server(binary, port)
            try:
                wait_up(fab, binary, port)
                fn(fab, binary, port)
            finally:
                srv.kill()
                srv.communicate()
    return test


def mbit(x):
    return x["throughput"]["bits_per_second"] / 1e6


def aggregate(fab, binary, port):
    """Two rails at RATE each: both carry their rate, the sum beats one."""
    one = doc_of(fab.client(binary, port, ["--rails", "rail0", "--json"]),
                 "one rail")
    two = doc_of(fab.client(binary, port, ["--rails", "rail0,rail1", "-P",
                                           "2", "--json"]), "two rails")
    r1, r2 = one["results"][0], two["results"][0]
    check(r1["rails"] == 1 and r2["rails"] == 2 and r2["streams"] == 4,
          "rails %r/%r streams %r" % (r1.get("rails"), r2.get("rails"),
                                      r2.get("streams")))
    rails = r2["per_rail"]
    check([x["rail"] for x in rails] == [0, 1] and
          [x["streams"] for x in rails] == [2, 2], "per_rail %r" % rails)
    for k, x in enumerate(rails):
        check(x["client"]["netdev"] == "rail%d" % k and
              x["client"]["address"] == fab.addr(k, "c") and
              x["server"]["address"] == fab.addr(k, "s") and
              not x["short"], "rail %d: %r" % (k, x))
        check(0.6 * RATE_MBIT < mbit(x) < 1.1 * RATE_MBIT,
              "rail %d moved %.0f Mbit/s, shaped to %d" %
              (k, mbit(x), RATE_MBIT))
    # each stream ran on its rail's addresses, both ends
    for k, st in enumerate(r2["client_streams"][:4]):
        check(st.get("local_address") ==
              fab.addr(k % 2, "c"), "stream %d from %r" % (k, st))
    total = r2["throughput"]["bits_per_second"] / 1e6
    alone = r1["throughput"]["bits_per_second"] / 1e6
    check(total > 1.5 * alone, "two rails %.0f Mbit/s, one %.0f" %
          (total, alone))
    log("  one rail %.0f Mbit/s, two %.0f (%.0f + %.0f), shaped to %d each"
        % (alone, total, mbit(rails[0]), mbit(rails[1]), RATE_MBIT))
    numa = doc_of(fab.client(binary, port, ["--rails", "rail0,rail1",
                                            "--rail-map", "numa", "--json"]),
                  "--rail-map numa")
    r = numa["results"][0]
    check(r.get("rail_numa") is True and
          [x["client"]["netdev"] for x in r["per_rail"]] ==
          ["rail0", "rail1"], "numa: %r" % r["per_rail"])


def short_rail(fab, binary, port):
    """Rail 1 at a quarter: named short, in JSON and in the text."""
    doc = doc_of(fab.client(binary, port, ["--rails", "rail0,rail1",
                                           "--json"]), "a slow rail")
    rails = doc["results"][0]["per_rail"]
    check(not rails[0]["short"] and rails[1]["short"] and
          rails[1]["share_of_best"] < 0.5,
          "per_rail %r" % [(x["short"], x["share_of_best"]) for x in rails])
    p = fab.client(binary, port, ["--rails", "rail0,rail1"])
    check(p.returncode == 0 and
          "rail 1 (rail1 to rail1) falls short" in p.stdout and
          "rail 0 (rail0" not in p.stdout, lambda: p.stdout + p.stderr)
    # --report reads the rails back and derives the same figures
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(doc, f)
        f.flush()
        again = subprocess.run([binary, "--report", f.name, "--json"],
                               capture_output=True, text=True)
        text = subprocess.run([binary, "--report", f.name],
                              capture_output=True, text=True)
    check(again.returncode == 0 and
          json.loads(again.stdout)["results"][0]["per_rail"] == rails,
          lambda: "--report --json: " + again.stdout[-2000:] + again.stderr)
    check(text.returncode == 0 and
          "rail 1 (rail1 to rail1) falls short" in text.stdout,
          lambda: "--report: " + text.stdout + text.stderr)
    log("  rail 1 shaped to %d of %d Mbit/s: %.0f against %.0f, named" %
        (RATE_MBIT // 4, RATE_MBIT, mbit(rails[1]), mbit(rails[0])))


def bad_input(binary):
    usage_error(binary, ["-c", "-a", "127.0.0.1", "-x", "tcp", "--rails",
                         "lo,lo"], "lo is named twice")
    usage_error(binary, ["-c", "-a", "127.0.0.1", "-x", "tcp", "--rails",
                         "lo,nosuch0"], "no RDMA device or network "
                "interface nosuch0")
    usage_error(binary, ["-c", "-a", "127.0.0.1", "-x", "tcp", "-d",
                         "lo,nosuch0"], "nosuch0")
    usage_error(binary, ["-c", "-a", "127.0.0.1", "-x", "tcp", "--rails",
                         ",lo"], "--rails")
    usage_error(binary, ["-c", "-a", "127.0.0.1", "-x", "tcp", "--rails",
                         "a,b,c,d,e,f,g,h,i"], "at most 8 rails")
    usage_error(binary, ["-c", "-a", "127.0.0.1", "-x", "tcp",
                         "--rail-map", "numa"], "--rail-map without --rails")
    usage_error(binary, ["-c", "-a", "127.0.0.1", "-x", "tcp",
                         "--rail-map", "pci", "--rails", "lo"],
                "--rail-map: pci")
    usage_error(binary, ["-x", "file:/tmp/rp-rails-x", "--rails", "lo"],
                "file cannot choose the NIC")
    usage_error(binary, ["-s", "--rails", "nosuch0"],
                "no RDMA device or network interface nosuch0")


def few_server_rails(binary):
    """A server of one rail refuses a test of two: exit 2, its reason."""
    with Rails([RATE_MBIT, RATE_MBIT]) as fab:
        if fab.why:
            return skip_or_fail(fab.why)
        port = free_port()
        srv = fab.server(binary, port, rails="rail0")
        try:
            wait_up(fab, binary, port)
            p = fab.client(binary, port, ["--rails", "rail0,rail1"])
            check(p.returncode == 2 and
                  "the server has 1 rail (--rails), the test asks for 2"
                  in p.stderr, lambda: "exit %d: %s" % (p.returncode,
                                                        p.stderr))
        finally:
            srv.kill()
            srv.communicate()


if __name__ == "__main__":
    main_or_skip([
        ("bad input", bad_input),
        ("two rails: aggregate", with_fabric([RATE_MBIT, RATE_MBIT],
                                             aggregate)),
        ("a rail at a quarter is named",
         with_fabric([RATE_MBIT, RATE_MBIT // 4], short_rail)),
        ("a server with fewer rails", few_server_rails),
    ], SKIPPED)
