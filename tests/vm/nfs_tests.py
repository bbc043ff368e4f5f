# SPDX-License-Identifier: MIT
"""
vm.nfs (issue 14): the file transport on NFS in the Soft-RoCE guest.
tests/vm/nfs_setup.sh exports a tmpfs with the kernel NFS server over TCP
and RDMA and mounts it twice from the guest's address (vers=4.2,
proto=rdma,port=20049 on /mnt/rdma; vers=4.2,proto=tcp on /mnt/tcp).
Checked: each mount is the protocol asked for (/proc/mounts and the xprt
line of /proc/self/mountstats); one rdmaperf command, -x
rdma,file:/mnt/rdma/f,file:/mnt/tcp/f -o read over 4 KiB, 64 KiB and
1 MiB with --verify, passes, its JSON valid against the schema, every file
result's bytes == size x messages, each mount sending at least that many
READ RPCs, the files removed afterwards; a write with --verify
on each mount leaves every slot's pattern, read back through the other
mount (another NFS client: the data is on the server).

When NFS over RDMA does not come up (nfs_setup.sh exit 3), the cases say
"skip: NFS over RDMA ..." with the setup's reason and the kernel's
messages, and test the TCP mount alone.
"""
import os
import subprocess

from e2elib import TestFailure, check, log, run
import guest_tests as gt
from file import check_written

HERE = os.path.dirname(os.path.abspath(__file__))
MNT = {"rdma": "/mnt/rdma", "tcp": "/mnt/tcp"}
SIZES = (4096, 65536, 1 << 20)
ITERS = 32
FEW = ["--warmup", "10", "--lat-iterations", "20"]
# what nfs_setup.sh brought up: the protocols mounted, and why not RDMA
state = {"protos": [], "rdma_skip": None}


def setup(_b, _s):
    p = subprocess.run(["bash", os.path.join(HERE, "nfs_setup.sh"),
                        "/srv/nfs", MNT["rdma"], MNT["tcp"]],
                       capture_output=True, text=True, timeout=240)
    said = (p.stdout + p.stderr).strip()
    check(p.returncode in (0, 3), lambda: "nfs_setup.sh exited %d:\n%s" %
          (p.returncode, said))
    state["protos"] = ["rdma", "tcp"] if p.returncode == 0 else ["tcp"]
    if p.returncode == 3:
        state["rdma_skip"] = said
        log("  skip: NFS over RDMA did not come up on rxe0; the TCP mount "
            "alone is tested:\n    " + said.replace("\n", "\n    "))
        return
    for ln in p.stdout.splitlines():
        log("  " + ln)


def skip_rdma(what):
    if state["rdma_skip"] is not None:
        log("  skip: %s over NFS/RDMA: the RDMA mount did not come up "
            "(see the first case)" % what)


def mount_options(path):
    with open("/proc/mounts") as f:
        for ln in f:
            dev, mnt, fstype, opts = ln.split()[:4]
            if mnt == path:
                return fstype, dict(o.partition("=")[::2]
                                    for o in opts.split(","))
    raise TestFailure("nothing is mounted on %s" % path)


def mountstats(path):
    """@path's block of /proc/self/mountstats, as lines."""
    with open("/proc/self/mountstats") as f:
        blocks = f.read().split("\ndevice ")
    for block in blocks:
        if (" mounted on %s with fstype nfs" % path) in block:
            return block.splitlines()
    raise TestFailure("%s is not in /proc/self/mountstats" % path)


def xprt(path):
    """The xprt line of @path's mount: the transport's name and its
    counters."""
    for ln in mountstats(path):
        f = ln.split()
        if f and f[0] == "xprt:":
            return f[1], [int(x) for x in f[2:]]
    raise TestFailure("no xprt line for %s in /proc/self/mountstats" % path)


def read_rpcs(path):
    """READ RPCs sent on @path's mount (the per-op statistics)."""
    for ln in mountstats(path):
        f = ln.split()
        if f and f[0] == "READ:":
            return int(f[1])
    raise TestFailure("no READ: line for %s in /proc/self/mountstats" % path)


def mounts(_b, _s):
    """Each mount is what it was asked to be, and they do not share a
    transport (the second one of a server may reuse the first one's)."""
    skip_rdma("the mount check")
    for proto in state["protos"]:
        fstype, o = mount_options(MNT[proto])
        check(fstype == "nfs4" and o.get("vers") == "4.2",
              "%s is %s vers=%s, want nfs4 vers=4.2" %
              (MNT[proto], fstype, o.get("vers")))
        check(o.get("proto") == proto, "%s is mounted with proto=%s, want %s"
              % (MNT[proto], o.get("proto"), proto))
        check(o.get("addr") == gt.ADDR, "%s is from %r, want %s" %
              (MNT[proto], o.get("addr"), gt.ADDR))
        if proto == "rdma":
            check(o.get("port") == "20049", "port=%r" % o.get("port"))
        name, _ = xprt(MNT[proto])
        check(name == proto, "%s's RPC transport is %s, want %s" %
              (MNT[proto], name, proto))
        log("  %s: nfs4 vers=4.2 proto=%s, xprt %s" % (MNT[proto], proto,
                                                       name))


def read_sweep(b, s):
    """The one command: the raw link and both mounts, read, three sizes,
    --verify; each mount's RPCs counted around it."""
    skip_rdma("the read sweep")
    files = ["file:%s/f" % MNT[p] for p in state["protos"]]
    before = {p: read_rpcs(MNT[p]) for p in state["protos"]}
    doc = gt.client_json(b, s.port, ["-x", ",".join(["rdma"] + files),
                                     "-o", "R", "-S", "4K,64K,1M", "-q",
                                     "16", "--file-size", "8M", "-C",
                                     str(ITERS), "--verify"] + FEW)
    after = {p: read_rpcs(MNT[p]) for p in state["protos"]}
    res = doc["results"]
    want = [(t, z) for z in SIZES for t in ["rdma"] + ["file"] * len(files)]
    got = [(x["transport"], x["size"]) for x in res]
    check(sorted(got) == sorted(want), "results %r, want %r" % (got, want))
    msgs = {p: 0 for p in state["protos"]}
    for x in res:
        if x["transport"] == "rdma":
            gt.check_result(x, "rdma", "read", x["size"], 16, ITERS, True)
            continue
        path = x["file"]["path"]
        proto = [p for p in state["protos"] if path == MNT[p] + "/f"]
        check(len(proto) == 1, "a result on %r" % path)
        for k, v in (("op", "read"), ("queue_depth", 16), ("ok", True),
                     ("messages", ITERS)):
            check(x.get(k) == v, "%s: %s = %r, want %r" % (path, k,
                                                           x.get(k), v))
        check(x["bytes"] == x["size"] * x["messages"],
              "%s: bytes %r != size %d x messages %d" %
              (path, x["bytes"], x["size"], x["messages"]))
        check(x["file"]["direct"] and x["file"]["created"],
              "%s: file %r" % (path, x["file"]))
        check(x["cpu"]["client"]["verify_errors"] == 0,
              "%s: verify errors" % path)
        check(x["latency"]["count"] == x["messages"], "%s: latency.count"
              % path)
        msgs[proto[0]] += x["messages"]
    for p in state["protos"]:
        check(not os.path.exists(MNT[p] + "/f"),
              "%s/f, created by the run, was left" % MNT[p])
        # O_DIRECT: every read is at least one READ RPC on that mount,
        # whose one transport (above) is p
        check(after[p] - before[p] >= msgs[p],
              "%s sent %d READ RPCs for %d reads" %
              (MNT[p], after[p] - before[p], msgs[p]))
        log("  %s: %d reads measured, %d READ RPCs over %s" %
            (MNT[p], msgs[p], after[p] - before[p], p))
    for x in res:
        log("  %-4s %-10s %7d B  %.3f Gb/s" %
            (x["transport"], x["file"]["path"] if x.get("file") else "rxe0",
             x["size"], x["throughput"]["bits_per_second"] / 1e9))


def write_verify(b, _s, proto):
    """A write with --verify on @proto's mount over a file that exists
    (kept), every 64 KiB slot read back through the other mount."""
    if proto not in state["protos"]:
        skip_rdma("write --verify")
        return
    # a name of its own: the other mount's client may hold a negative
    # dentry for a name it saw removed
    path = MNT[proto] + "/w-" + proto
    other = [p for p in state["protos"] if p != proto] or [proto]
    back = MNT[other[0]] + "/w-" + proto
    open(path, "wb").close()
    try:
        r = run(b, ["-x", "file:" + path, "-o", "W", "-S", "64K", "-q", "16",
                    "--file-size", "2M", "-C", "64", "--verify", "--json"] +
                FEW, timeout=gt.TIMEOUT)
        check(r.rc == 0, lambda: r.describe())
        x = r.json()["results"][0]
        check(x["ok"] and x["op"] == "write" and x["messages"] == 64 and
              x["bytes"] == 65536 * 64 and x["file"]["direct"] and
              not x["file"]["created"], "result %r" % {
                  k: x.get(k) for k in ("ok", "op", "messages", "bytes",
                                        "file")})
        check(x["cpu"]["client"]["verify_errors"] == 0, "verify errors")
        check(os.path.getsize(back) == 2 << 20, "%s is %d bytes" %
              (back, os.path.getsize(back)))
        n = check_written(back, 65536, 32)
        log("  %d slots of 64 KiB written over %s, read back over %s" %
            (n, proto, other[0]))
    finally:
        os.unlink(path)


def nfs(_binary):
    return [("nfs_setup.sh: the server, the RDMA and TCP mounts", setup),
            ("each mount is its protocol", mounts),
            ("rdma,file:NFS/RDMA,file:NFS/TCP read sweep --verify",
             read_sweep),
            ("write --verify on NFS/RDMA, read back over NFS/TCP",
             lambda b, s: write_verify(b, s, "rdma")),
            ("write --verify on NFS/TCP, read back over NFS/RDMA "
             "(or NFS/TCP)",
             lambda b, s: write_verify(b, s, "tcp"))]
