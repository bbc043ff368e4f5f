# SPDX-License-Identifier: MIT
"""
A fabric of network namespaces on this host, for --matrix over tcp: N
"nodes", each a namespace with one veth link into a bridge (10.99.0.K/24,
K = 1..N), each link shaped by tbf both ways (the node's side and the
bridge's), one of them to half the rate. Open MPI treats each namespace as
a host: its remote shell (an "rsh" script here) runs orted in the node's
namespace, which reaches mpirun over the bridge, so every rank binds,
listens and connects in its own namespace, as on separate machines.

It is what the virtual fabric's guests do (tests/vm/fabric.py) without
emulation: the rates are the shaper's, a few seconds a run, so it is the
quick check that --matrix names a node at half rate after its retest.
"""
import json
import os
import shutil
import stat
import subprocess
import tempfile

import check_json  # noqa: E402 (tests/tools: matrix.py puts it on the path)
from e2elib import Run, check, log  # noqa: E402

SUBNET = "10.99.0"
RATE_MBIT = 200  # every link but the slow node's; far below what tcp does


class NetnsFabric:
    def __init__(self, nodes, slow=None):
        tag = os.getpid() % 100000
        self.nodes, self.slow = nodes, slow
        self.tag = tag
        self.ns = ["rpf%d.%d" % (tag, k) for k in range(1, nodes + 1)]
        self.veth = ["rpfv%d.%d" % (tag, k) for k in range(1, nodes + 1)]
        self.bridge = "rpfb%d" % tag
        self.why = None
        self.dir = None

    def sh(self, *cmd):
        p = subprocess.run(list(cmd), capture_output=True, text=True)
        if p.returncode and not self.why:
            self.why = "%s: %s" % (" ".join(cmd), p.stderr.strip())
        return p.returncode == 0

    def addr(self, k):
        return "%s.%d" % (SUBNET, k)

    def shape(self, k):
        rate = RATE_MBIT // 2 if k == self.slow else RATE_MBIT
        tbf = ["root", "tbf", "rate", "%dmbit" % rate, "burst", "128kb",
               "latency", "100ms"]
        return (self.sh("tc", "qdisc", "add", "dev", self.veth[k - 1],
                        *tbf) and
                self.sh("tc", "-n", self.ns[k - 1], "qdisc", "add", "dev",
                        "eth0", *tbf))

    def node(self, k):
        ns, veth = self.ns[k - 1], self.veth[k - 1]
        return (self.sh("ip", "netns", "add", ns) and
                self.sh("ip", "link", "add", veth, "type", "veth", "peer",
                        "name", "eth0", "netns", ns) and
                self.sh("ip", "link", "set", veth, "master", self.bridge,
                        "up") and
                self.sh("ip", "-n", ns, "addr", "add", self.addr(k) + "/24",
                        "dev", "eth0") and
                self.sh("ip", "-n", ns, "link", "set", "eth0", "up") and
                self.sh("ip", "-n", ns, "link", "set", "lo", "up") and
                self.shape(k))

    def __enter__(self):
        if os.geteuid() != 0 or not shutil.which("ip") or \
                not shutil.which("tc"):
            self.why = "needs root, ip(8) and tc(8) for namespaces"
            return self
        ok = (self.sh("ip", "link", "add", self.bridge, "type", "bridge") and
              self.sh("ip", "addr", "add", self.addr(254) + "/24", "dev",
                      self.bridge) and
              self.sh("ip", "link", "set", self.bridge, "up"))
        for k in range(1, self.nodes + 1):
            ok = ok and self.node(k)
        self.dir = tempfile.mkdtemp(prefix="rpfab")
        with open(self.rsh(), "w") as f:
            # HOST is 10.99.0.K: run the command line in node K's
            # namespace, with a session directory of its own: every node
            # has this host's name and /tmp, and orteds sharing
            # /tmp/ompi.HOST.UID raced on it (2 of 15 runs: "orte_session_dir
            # failed ... No such file or directory")
            f.write('#!/bin/sh\nh=$1; shift\nk=${h##*.}\n'
                    'mkdir -p "%s/node$k"\n'
                    'exec ip netns exec "rpf%d.$k" env '
                    'OMPI_MCA_orte_tmpdir_base="%s/node$k" sh -c "$*"\n' %
                    (self.dir, self.tag, self.dir))
        os.chmod(self.rsh(), stat.S_IRWXU)
        return self

    def rsh(self):
        return os.path.join(self.dir, "rsh")

    def __exit__(self, *exc):
        for ns in self.ns:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge],
                       capture_output=True)
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def mpirun(self, binary, args, env, timeout=240):
        hosts = ",".join(self.addr(k) for k in range(1, self.nodes + 1))
        net = SUBNET + ".0/24"
        cmd = ["mpirun", "--mca", "plm_rsh_agent", self.rsh(), "--mca",
               "routed", "direct", "--mca", "oob_tcp_if_include", net,
               "--mca", "btl_tcp_if_include", net, "--mca", "btl",
               "self,tcp", "--mca", "pml", "ob1", "-H", hosts, "-np",
               str(self.nodes), binary, "--matrix"] + list(args)
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, errors="replace", env=env,
                           timeout=timeout)
        return Run(cmd, p.returncode, p.stdout, p.stderr, 0)


def half_rate_node(binary, env):
    """Four nodes, node 4's link at half the others' rate both ways: its
    six pairs are the outliers (2/3 of the median), each still one alone
    in its retest ("bad"), and node 4 (rank 3) is named the bad node,
    confirmed; no pair among the other three is an outlier."""
    with NetnsFabric(4, slow=4) as fab:
        if fab.why:
            check(os.environ.get("CI") != "true", "CI: " + fab.why)
            log("  skipped: " + fab.why)
            return
        r = fab.mpirun(binary, ["-x", "tcp", "-S", "16K", "-q", "8", "-t",
                                "0.5", "--no-latency", "--wait", "event",
                                "--quiet", "--json"], env)
        check(r.rc == 0, lambda: "mpirun over the namespaces:\n" +
              r.describe())
        doc = json.loads(r.out)
        errors = check_json.validate_matrix(doc)
        check(not errors, lambda: "matrix schema: " + "; ".join(errors[:5]))
        m = doc["matrix"]
        check([x["address"] for x in m["ranks"]] ==
              [fab.addr(k) for k in (1, 2, 3, 4)],
              "ranks on %r" % [x["address"] for x in m["ranks"]])
        t = m["tables"][0]
        slow = sorted((o["client"], o["server"]) for o in t["outliers"])
        want = sorted([(c, 3) for c in range(3)] + [(3, s) for s in range(3)])
        check(slow == want, "outliers %r, want every pair of rank 3" % slow)
        check(all(o["retest"]["verdict"] == "bad" for o in t["outliers"]),
              "retests %r" % [o["retest"] for o in t["outliers"]])
        check(t["bad_nodes"] == [{"rank": 3, "metric": "throughput",
                                  "retest": "bad"}],
              "bad nodes %r" % t["bad_nodes"])
        gbps = t["throughput_gbps"]
        log("  node 4 at %d of %d Mbit/s: its pairs %.0f Mbit/s, the others "
            "%.0f; named the bad node after its 6 retests" %
            (RATE_MBIT // 2, RATE_MBIT, gbps[3][0] * 1000,
             gbps[0][1] * 1000))
