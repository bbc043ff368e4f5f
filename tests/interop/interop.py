#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Interoperability of two rdmaperf builds on loopback: the native one and a
"foreign" one (another architecture under qemu-user, another OS under
wine, ...). The control protocol is independent of byte order and word
size (DESIGN.md); this proves it, both ways.

    interop.py --native PATH --foreign 'WRAPPER... PROGRAM' [options]

  --native PATH        the native rdmaperf
  --foreign CMD        how to run the foreign build: a command line, split
                       like a shell does (shlex), its wrapper first, e.g.
                         'qemu-s390x build-cross-s390x/rdmaperf'
                         'wine64 build-win/rdmaperf.exe'
                         'build-cross-i686/rdmaperf'        (no wrapper)
  --name NAME          what to call the foreign build in messages
                       (default "foreign")
  --expect KEY=VALUE   the foreign side's build facts (hosts.*.build in the
                       JSON) must hold VALUE at KEY; repeatable, e.g.
                       --expect arch=s390x --expect byte_order=big
  --ops LIST           operations (default W,R,S)
  --sizes LIST         message sizes of the sweep (default 1,7,13,1M)
  --iterations N       -C per size (default 32)
  --timeout SEC        longest one client run may take (default 120)
  --require            a foreign build that cannot run fails (exit 1)
                       instead of being skipped (exit 77)

For each direction (foreign client -> native server, native client ->
foreign server) and each operation it runs one `-x tcp --verify --json`
sweep over the sizes and checks that:
  - the client's JSON validates against schema/rdmaperf-1.schema.json;
  - every point completed (ok, no error) with bytes = size x iterations and
    messages = iterations, and both sides' own counts (cpu.client and
    cpu.server: bytes, messages, verify_errors = 0) agree with them;
  - the foreign client's document has the same shape (the same key paths)
    as the native client's for the same test;
  - hosts.client / hosts.server describe the right build on each side
    (--expect), and the native side's build is the native one.
Exit status: 0 all passed, 1 a check failed, 2 bad usage, 77 skipped (the
foreign command does not run here), with the reason on stdout.

Python 3 standard library only; it reuses tests/e2e/e2elib.py. CTest runs
it through tests/interop/run_arch.sh for each cross build (label interop).
"""
import argparse
import os
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "e2e"))
import e2elib  # noqa: E402
from e2elib import check, log  # noqa: E402

QUICK = ["--warmup", "8", "--lat-iterations", "16"]
SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text):
    unit = text[-1:].upper() if text[-1:].isalpha() else ""
    return int(text[:len(text) - len(unit)]) * SIZE_UNITS[unit]


def parse_args(argv):
    p = argparse.ArgumentParser(description="rdmaperf interoperability",
                                add_help=True)
    p.add_argument("--native", required=True)
    p.add_argument("--foreign", required=True)
    p.add_argument("--name")
    p.add_argument("--expect", action="append", default=[])
    p.add_argument("--ops", default="W,R,S")
    p.add_argument("--sizes", default="1,7,13,1M")
    p.add_argument("--iterations", type=int, default=32)
    p.add_argument("--timeout", type=int, default=120)
    p.add_argument("--require", action="store_true")
    a = p.parse_args(argv)
    a.native = [os.path.abspath(a.native)]
    a.foreign = shlex.split(a.foreign)
    a.name = a.name or "foreign"
    try:
        a.expect = dict(e.split("=", 1) for e in a.expect)
        a.size_list = [parse_size(s) for s in a.sizes.split(",")]
    except (ValueError, KeyError) as e:
        p.error("bad --expect or --sizes: %s" % e)
    return a


def skip_unless_runs(a):
    """Exit 77 (or 1 under --require) if the foreign build cannot run."""
    try:
        r = subprocess.run(a.foreign + ["--version"], capture_output=True,
                           text=True, timeout=60)
        why = None if r.returncode == 0 else \
            "exit %d: %s" % (r.returncode, (r.stderr or r.stdout).strip())
    except (OSError, subprocess.TimeoutExpired) as e:
        why = str(e)
    if why:
        log("SKIP: the foreign build does not run (%s): %s" %
            (" ".join(a.foreign), why))
        sys.exit(1 if a.require else 77)


# What a side reads of its own host (its link's facts and counters, from
# sysfs and /proc: a Windows side has none) differs by platform, not by
# the protocol: those subtrees are left out of the comparison.
HOST_OWN = ("link", "counters")


def key_paths(obj, prefix=""):
    """Every key path of @obj; list elements share one path ([])."""
    paths = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in HOST_OWN:
                continue
            paths.add(prefix + "." + k)
            paths |= key_paths(v, prefix + "." + k)
    elif isinstance(obj, list):
        for v in obj:
            paths |= key_paths(v, prefix + "[]")
    return paths


def check_side(side, want, what):
    """The counts one side reports (cpu.client or cpu.server)."""
    for k in ("bytes", "messages"):
        check(side.get(k) == want[k], "%s reports %s %r, want %r" %
              (what, k, side.get(k), want[k]))
    check(side.get("verify_errors") == 0, "%s: verify_errors %r" %
          (what, side.get("verify_errors")))


def check_counts(doc, a, op, label):
    res = doc["results"]
    check(len(res) == len(a.size_list), "%s: %d results, want %d" %
          (label, len(res), len(a.size_list)))
    for r, size in zip(res, a.size_list):
        what = "%s -S %d" % (label, size)
        check(r["ok"] is True and r["error"] is None,
              lambda: "%s failed: %r" % (what, r["error"]))
        check(r["size"] == size, "%s: size %r" % (what, r["size"]))
        want = {"bytes": size * a.iterations, "messages": a.iterations}
        check(r["bytes"] == want["bytes"] and
              r["messages"] == want["messages"],
              "%s: %r bytes in %r messages, want %r" %
              (what, r["bytes"], r["messages"], want))
        check_side(r["cpu"]["client"], want, what + " client")
        check_side(r["cpu"]["server"], want, what + " server")
    check(doc["error"] is None, "%s: error %r" % (label, doc["error"]))


def check_build(host, expect, label):
    build = host.get("build")
    if not expect:
        return
    check(isinstance(build, dict), "%s: no build facts in %r" %
          (label, host))
    for k, v in expect.items():
        check(str(build.get(k)) == v, "%s: build.%s is %r, want %r" %
              (label, k, build.get(k), v))


def native_build(a):
    """The native build's facts, from a --loopback run of its own."""
    r = e2elib.run(a.native, ["--loopback", "-x", "tcp", "-C", "4",
                              "--no-latency", "--json"] + QUICK)
    check(r.rc == 0, lambda: "native --loopback failed:\n" + r.describe())
    return r.json()["hosts"]["client"].get("build") or {}


def one_direction(a, client, server, op, label):
    args = ["-x", "tcp", "-o", op, "-S", a.sizes, "-C", a.iterations,
            "--verify", "--quiet"] + QUICK
    t0 = time.monotonic()
    r = e2elib.client(client, server.port, args + ["--json"], a.timeout)
    check(r.rc == 0, lambda: "%s: client failed:\n%s\nserver stderr: %s" %
          (label, r.describe(), server.stderr()))
    doc = r.json()
    check_counts(doc, a, op, label)
    log("ok   %s (%.1f s)" % (label, time.monotonic() - t0))
    return doc


def run_all(a):
    native_facts = {k: str(v) for k, v in native_build(a).items()}
    docs = {}
    for fore_client in (True, False):
        client, srv = (a.foreign, a.native) if fore_client else \
            (a.native, a.foreign)
        way = ("%s client -> native server" if fore_client else
               "native client -> %s server") % a.name
        with e2elib.Server(srv) as server:
            for op in a.ops.split(","):
                doc = one_direction(a, client, server, op,
                                    "%s, -o %s" % (way, op))
                fore, nat = ("client", "server") if fore_client else \
                    ("server", "client")
                check_build(doc["hosts"][fore], a.expect, way + " " + fore)
                check_build(doc["hosts"][nat], native_facts, way + " " + nat)
                docs[(fore_client, op)] = doc
    for op in a.ops.split(","):
        fp, np = key_paths(docs[(True, op)]), key_paths(docs[(False, op)])
        check(fp == np, "-o %s: the foreign client's JSON differs in shape: "
              "only foreign %s, only native %s" %
              (op, sorted(fp - np)[:10], sorted(np - fp)[:10]))


def main():
    a = parse_args(sys.argv[1:])
    skip_unless_runs(a)
    t0 = time.monotonic()
    try:
        run_all(a)
    except e2elib.TestFailure as e:
        log("FAIL " + str(e).replace("\n", "\n  "))
        sys.exit(1)
    log("interop with %s passed in %.1f s" % (a.name, time.monotonic() - t0))


if __name__ == "__main__":
    main()
