#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
End to end: the file transport (-x file:PATH) on temporary directories,
no server. O_DIRECT where the filesystem has it (/var/tmp, else an ext4
image on a loop device), --buffered on tmpfs, the clear error where O_DIRECT
is missing (ramfs, or tmpfs before Linux 6.6), every op with --verify
(writes checked byte for byte against the pattern, reads check it
themselves), depths 1 and 32, a sweep, intervals, --random, --fsync-every,
a list mixing a file with tcp against a server, bad values (exit 2), a full
disk, a read-only mount and a missing directory (exit 1, nothing left
behind), the file removed unless it existed, JSON against the schema.

    python3 tests/e2e/file.py /path/to/rdmaperf

Mounts (tmpfs, ramfs, a loop device) need root: a case that cannot have
one prints why and is skipped.
"""
import contextlib
import csv
import hashlib
import io
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (HELLO, QUICK, TEST, USAGE_LINE, Server,  # noqa: E402
                    binary_from_argv, check, check_error_message, client,
                    ctl_connect, hello_body, log, main, message,
                    recv_message, run, spec_body)

REGION = 4 << 20  # --file-size of most runs: small, so that fills are quick
QUICK_FILE = QUICK + ["--file-size", str(REGION)]


def pattern(seq, size):
    """rp_payload_fill (src/xport/xport.c): message @seq's @size bytes."""
    head = [(seq >> (8 * i)) & 0xff for i in range(min(8, size))]
    tail = [((seq * 131 + i * 7 + (i >> 8)) ^ 0x5a) & 0xff
            for i in range(8, size)]
    return bytes(head + tail)


def skip_case(why):
    log("  skip: " + why)


@contextlib.contextmanager
def scratch(parent=None):
    d = tempfile.mkdtemp(prefix="rp-file-", dir=parent)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@contextlib.contextmanager
def mounted(fstype, options="", source=None):
    """A fresh mount of @fstype (of @source, default none), or None (with
    the reason logged)."""
    d = tempfile.mkdtemp(prefix="rp-mnt-")
    args = ["mount", "-t", fstype] + (["-o", options] if options else [])
    r = subprocess.run(args + [source or fstype, d], capture_output=True,
                       text=True)
    if r.returncode:
        os.rmdir(d)
        skip_case("cannot mount %s here (%s)" % (fstype, r.stderr.strip()))
        yield None
        return
    try:
        yield d
    finally:
        subprocess.run(["umount", d], capture_output=True)
        os.rmdir(d)


def direct_ok(directory):
    """Does @directory's filesystem open files with O_DIRECT?"""
    path = os.path.join(directory, ".rp-odirect")
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_DIRECT, 0o644)
        os.close(fd)
        return True
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


@contextlib.contextmanager
def direct_dir():
    """A directory with O_DIRECT: /var/tmp, else an ext4 image on a loop
    device; None (reason logged) when neither."""
    if os.path.isdir("/var/tmp") and direct_ok("/var/tmp"):
        with scratch("/var/tmp") as d:
            yield d
        return
    with scratch() as img_dir:
        img = os.path.join(img_dir, "ext4.img")
        with open(img, "wb") as f:
            f.truncate(64 << 20)
        r = subprocess.run(["mkfs.ext4", "-q", "-F", img],
                           capture_output=True, text=True)
        if r.returncode:
            skip_case("/var/tmp has no O_DIRECT and mkfs.ext4 failed: " +
                      r.stderr.strip())
            yield None
            return
        log("  /var/tmp has no O_DIRECT: an ext4 image on a loop device")
        with mounted("ext4", "loop", img) as d:
            yield d


def file_json(binary, path, args, extra_x=""):
    r = run(binary, ["-x", "file:" + path + extra_x] + QUICK_FILE +
            list(args) + ["--json"])
    check(r.rc == 0, lambda: "the run failed:\n" + r.describe())
    return r.json()


def one_result(doc, path, op, size, depth):
    res = doc["results"]
    check(len(res) == 1, "want one result, got %d" % len(res))
    r = res[0]
    for k, v in (("transport", "file"), ("op", op), ("size", size),
                 ("queue_depth", depth), ("ok", True)):
        check(r.get(k) == v, "result.%s = %r, want %r" % (k, r.get(k), v))
    f = r["file"]
    check(f["path"] == path, "file.path %r, want %r" % (f["path"], path))
    check(r["bytes"] == r["messages"] * size and r["messages"] > 0,
          "bytes %r for %r messages of %d" % (r["bytes"], r["messages"], size))
    check(r["latency"]["count"] == r["messages"],
          "latency.count %r, messages %r" % (r["latency"]["count"],
                                             r["messages"]))
    u = r["latency_unloaded"]
    check(u["count"] == 200 and u["method"] == "whole operation",
          "latency_unloaded %r" % u)
    check(r["cpu"]["server"] is None and doc["hosts"]["server"] is None,
          "a file has no server: %r %r" % (r["cpu"], doc["hosts"]))
    check(r["cpu"]["client"]["verify_errors"] == 0, "verify errors")
    return r


def check_written(path, size, slots=None):
    """Every slot of @size in @path holds its pattern (or, when @slots is
    None, either its pattern or zeros: random writes miss some); returns
    how many hold the pattern."""
    written = 0
    with open(path, "rb") as f:
        data = f.read()
    n = len(data) // size if slots is None else slots
    for k in range(n):
        block = data[k * size:(k + 1) * size]
        if block == pattern(k, size):
            written += 1
        else:
            check(slots is None and block == bytes(size),
                  "slot %d of %s holds neither its pattern nor zeros" %
                  (k, path))
    return written


def test_not_built(binary):
    """A build without liburing refuses -x file: with exit 2."""
    r = run(binary, ["-x", "file:/tmp/x"])
    check(r.rc == 2 and "without liburing" in r.err,
          lambda: "want exit 2, 'without liburing':\n" + r.describe())


def test_direct_write_read_verify(binary):
    """O_DIRECT: a write with --verify leaves each slot's pattern (read
    back here), then reads check the pattern; depths 1 and 32."""
    with direct_dir() as d:
        if d is None:
            return
        path = os.path.join(d, "f")
        open(path, "wb").close()  # existed: kept, so it can be read back
        doc = file_json(binary, path, ["-o", "write", "-S", "64K", "-q", "1",
                                       "-C", "128", "--verify"])
        r = one_result(doc, path, "write", 65536, 1)
        check(r["file"]["direct"] and not r["file"]["created"],
              "file %r" % r["file"])
        check(os.path.getsize(path) == REGION, "the region was not sized")
        # warm-up, ping-pongs and 128 writes: the whole region, in order
        check(check_written(path, 65536, REGION // 65536) == 64,
              "not every slot written")
        # a read checks what is there (the 64 KiB slots), never refills
        # a file it did not create
        doc = file_json(binary, path, ["-o", "read", "-S", "64K", "-q",
                                       "32", "-C", "2000", "--verify"])
        one_result(doc, path, "read", 65536, 32)
        check(check_written(path, 65536, REGION // 65536) == 64,
              "the read changed the file")
        os.unlink(path)
        file_json(binary, path, ["-o", "R", "-S", "4K", "-q", "32", "-C",
                                 "500"])
        check(not os.path.exists(path), "a file the run created was left")


def test_buffered_tmpfs(binary):
    """tmpfs, --buffered: both ops, through the page cache."""
    with mounted("tmpfs", "size=16m") as d:
        if d is None:
            return
        path = os.path.join(d, "f")
        for op in ("write", "read"):
            doc = file_json(binary, path, ["-o", op, "-S", "16K", "-C",
                                           "1000", "--buffered", "--verify"])
            r = one_result(doc, path, op, 16384, 16)
            check(r["file"]["direct"] is False and r["file"]["created"],
                  "file %r" % r["file"])
            check(os.listdir(d) == [], "left behind: %r" % os.listdir(d))


def test_no_odirect(binary):
    """A filesystem without O_DIRECT: one clear line that says --buffered,
    exit 1, nothing left behind."""
    with mounted("ramfs") as d:
        if d is None:
            return
        if direct_ok(d):
            skip_case("ramfs has O_DIRECT on this kernel")
            return
        r = run(binary, ["-x", "file:%s/f" % d, "-o", "W"] + QUICK_FILE)
        check(r.rc == 1 and "O_DIRECT" in r.err and "--buffered" in r.err,
              lambda: "want exit 1 naming O_DIRECT and --buffered:\n" +
              r.describe())
        check(len(r.err.strip().splitlines()) == 1,
              lambda: "want one line on stderr:\n" + r.describe())
        check(os.listdir(d) == [], "left behind: %r" % os.listdir(d))


def test_sweep_random_intervals(binary):
    """A sweep -S 4K-64K in one table; --random writes; -i intervals."""
    with mounted("tmpfs", "size=16m") as d:
        if d is None:
            return
        path = os.path.join(d, "f")
        r = run(binary, ["-x", "file:" + path, "-o", "R", "-S", "4K-64K",
                         "--buffered"] + QUICK_FILE)
        check(r.rc == 0, lambda: r.describe())
        rows = [ln for ln in r.out.splitlines()
                if ln.strip().endswith("16") is False and " KiB " in ln]
        check("file read sweep, 5 points" in r.out and len(rows) >= 5,
              lambda: "no sweep table:\n" + r.out)
        check("file %s: buffered, sequential" % path in r.out,
              lambda: "the table does not name the file:\n" + r.out)
        open(path, "wb").close()
        doc = file_json(binary, path, ["-o", "W", "-S", "4K", "-C", "300",
                                       "--random", "--buffered", "--verify"])
        one_result(doc, path, "write", 4096, 16)
        check(doc["results"][0]["file"]["access"] == "random", "access")
        hit = check_written(path, 4096)
        check(200 < hit < 1024, "random writes hit %d slots of 1024" % hit)
        doc = file_json(binary, path, ["-o", "R", "-t", "1", "-i", "0.25",
                                       "--buffered"])
        iv = doc["results"][0]["intervals"]
        check(3 <= len(iv) <= 5, "want 4 intervals, got %d" % len(iv))
        check(sum(i["messages"] for i in iv) ==
              doc["results"][0]["messages"], "intervals do not add up")


def test_fsync_every(binary):
    """--fsync-every: reported in JSON and text; every write completes."""
    with direct_dir() as d:
        if d is None:
            return
        path = os.path.join(d, "f")
        doc = file_json(binary, path, ["-o", "W", "-S", "4K", "-q", "8",
                                       "-C", "400", "--fsync-every", "4"])
        r = one_result(doc, path, "write", 4096, 8)
        check(r["file"]["fsync_every"] == 4, "file %r" % r["file"])
        t = run(binary, ["-x", "file:" + path, "-o", "W", "-S", "4K", "-C",
                         "100", "--fsync-every", "4", "--csv"] + QUICK_FILE)
        rows = list(csv.DictReader(io.StringIO(t.out)))
        check(t.rc == 0 and rows and rows[0].get("file_fsync_every") == "4",
              lambda: "CSV lacks file_fsync_every 4:\n" + t.describe())
        t = run(binary, ["-x", "file:" + path, "-o", "W", "-S", "4K", "-C",
                         "100", "--fsync-every", "4"] + QUICK_FILE)
        check(t.rc == 0 and "fsync every 4 writes" in t.out,
              lambda: t.describe())
        check(not os.path.exists(path), "left behind")


def test_bad_values(binary):
    for args, words in (
            (["--fsync-every", "0"], "--fsync-every"),
            (["--file-size", "-1"], "--file-size"),
            (["--file-size", "4K", "-S", "64K"], "smaller than"),
            (["-o", "send"], "cannot do send"),
            (["-o", "R", "--fsync-every", "2"], "writes durable"),
            (["--bidir"], "--bidir")):
        r = run(binary, ["-x", "file:/tmp/rp-never"] + args)
        check(r.rc == 2 and words in r.err and USAGE_LINE in r.err,
              lambda: "want exit 2 naming %r:\n%s" % (words, r.describe()))
        check(len(r.err.strip().splitlines()) == 2, lambda: r.describe())
        check(not os.path.exists("/tmp/rp-never"), "a refused run made it")
    r = run(binary, ["-x", "file"])
    check(r.rc == 2 and "file:PATH" in r.err, lambda: r.describe())


def test_errors(binary):
    """A full disk, a read-only mount, a missing directory: one line each,
    exit 1, nothing left behind."""
    r = run(binary, ["-x", "file:/nonexistent-rp-dir/f", "-o", "W"] +
            QUICK_FILE)
    check(r.rc == 1 and "no such directory" in r.err and
          len(r.err.strip().splitlines()) == 1,
          lambda: "missing directory:\n" + r.describe())
    with mounted("tmpfs", "size=1m") as d:
        if d is not None:
            r = run(binary, ["-x", "file:%s/f" % d, "-o", "W",
                             "--buffered"] + QUICK_FILE)
            check(r.rc == 1 and "no space left" in r.err and
                  len(r.err.strip().splitlines()) == 1,
                  lambda: "full disk:\n" + r.describe())
            check(os.listdir(d) == [], "left behind: %r" % os.listdir(d))
    with mounted("tmpfs", "ro,size=1m") as d:
        if d is not None:
            r = run(binary, ["-x", "file:%s/f" % d, "-o", "W",
                             "--buffered", "--json"] + QUICK_FILE)
            check(r.rc == 1 and "read-only" in r.out,
                  lambda: "read-only mount:\n" + r.describe())
            e = r.json()["results"][0]["error"]
            check("read-only" in e["message"], "error %r" % e)


def digest(path):
    """What a run must leave as it was: the bytes, the size, the mtime."""
    with open(path, "rb") as f:
        return (hashlib.sha256(f.read()).hexdigest(), os.path.getsize(path),
                os.stat(path).st_mtime_ns)


def refused_at_once(binary, path, op, words, within=5.0, extra=()):
    r = run(binary, ["-x", "file:" + path, "-o", op, "--buffered"] +
            QUICK_FILE + list(extra), timeout=within + 30)
    check(r.rc == 1 and all(w in r.err for w in words) and
          len(r.err.strip().splitlines()) == 1 and r.seconds < within,
          lambda: "%s -o %s: want exit 1 within %.0f s and one line "
          "naming %r:\n%s" % (path, op, within, words, r.describe()))


def test_symlink_never_followed(binary):
    """[39.1] a link planted at PATH (a world-writable directory): refused
    for a write and a read, its target untouched; also a link to a name
    that does not exist yet (the write would have created it)."""
    with scratch() as d:
        victim = os.path.join(d, "victim")
        with open(victim, "wb") as f:
            f.write(b"a 32-byte stand-in for a file..")
        before = digest(victim)
        link = os.path.join(d, "bench")
        os.symlink(victim, link)
        for op in ("W", "R"):
            refused_at_once(binary, link, op, ["symbolic link"])
            check(digest(victim) == before, "-o %s through a link changed "
                  "its target: %r -> %r" % (op, before, digest(victim)))
        dangling = os.path.join(d, "dangling")
        os.symlink(os.path.join(d, "made-by-the-link"), dangling)
        refused_at_once(binary, dangling, "W", [dangling])
        check(not os.path.exists(os.path.join(d, "made-by-the-link")),
              "a write created the file a dangling link names")
        # a target long enough for the region, and more streams
        with open(victim, "wb") as f:
            f.write(os.urandom(REGION))
        before = digest(victim)
        for op in ("W", "R"):
            refused_at_once(binary, link, op, ["symbolic link"],
                            extra=["-P", "3"])
            check(digest(victim) == before, "-o %s -P 3 through a link "
                  "changed its target" % op)


def test_hard_link_never_written(binary):
    """[39.1] a hard link planted at PATH (O_NOFOLLOW does not see one):
    a write is refused, naming the links, the file unchanged under both
    names; a read of it runs."""
    with scratch() as d:
        victim = os.path.join(d, "victim")
        with open(victim, "wb") as f:
            f.write(os.urandom(REGION))
        before = digest(victim)
        link = os.path.join(d, "bench")
        os.link(victim, link)
        refused_at_once(binary, link, "W", [link, "hard links"])
        check(digest(victim) == before, "a write through a hard link "
              "changed the file")
        file_json(binary, link, ["-o", "R", "-S", "64K", "--buffered"])
        check(digest(victim) == before, "a read through a hard link "
              "changed the file")


def test_read_never_writes(binary):
    """[39.2] -o read on an existing 27-byte file with a region of 4 MiB:
    refused naming both sizes, the file unchanged; on a file long enough
    (random bytes): it runs, --verify or not, -P 3 or a region shorter
    than the file, and its bytes, size and mtime are the same after (the
    pattern was written over them); a file on a read-only mount reads."""
    with scratch() as d:
        short = os.path.join(d, "short")
        with open(short, "wb") as f:
            f.write(b"twenty-seven bytes of text\n")
        before = digest(short)
        refused_at_once(binary, short, "R", ["27 bytes", str(REGION),
                                             "never writes"])
        check(digest(short) == before, "a refused read changed the file")
        full = os.path.join(d, "full")
        with open(full, "wb") as f:
            f.write(os.urandom(REGION))
        before = digest(full)
        file_json(binary, full, ["-o", "R", "-S", "64K", "--buffered"])
        check(digest(full) == before, "a read wrote to a file it did not "
              "create")
        # the streams past the first open it too, read-only; a region
        # shorter than the file reads its start
        file_json(binary, full, ["-o", "R", "-S", "64K", "--buffered",
                                 "-P", "3", "--random"])
        check(digest(full) == before, "a read of 3 streams wrote to it")
        r = run(binary, ["-x", "file:" + full, "-o", "R", "-S", "4K",
                         "--buffered", "--file-size", "1M"] + QUICK)
        check(r.rc == 0, lambda: "a region shorter than the file:\n" +
              r.describe())
        check(digest(full) == before, "a read of a short region wrote")
        # a region of the default 1 GiB: the 4 MiB file is too short
        refused_at_once(binary, full, "R", [str(REGION) + " bytes",
                                            str(1 << 30)], extra=[
                                                "--file-size", "1G"])
        check(digest(full) == before, "a refused read changed the file")
        r = run(binary, ["-x", "file:" + full, "-o", "R", "-S", "64K",
                         "--buffered", "--verify", "--json"] + QUICK_FILE)
        check(r.rc == 1 and r.json()["error"]["code"] == "verify",
              lambda: "random bytes read with --verify: want the verify "
              "errors reported:\n" + r.describe())
        check(digest(full) == before, "a --verify read wrote to the file")
    # a file on a read-only mount reads: nothing opens it for writing
    with mounted("tmpfs", "size=8m") as m:
        if m is None:
            return
        path = os.path.join(m, "data")
        with open(path, "wb") as f:
            f.write(os.urandom(REGION))
        before = digest(path)
        r = subprocess.run(["mount", "-o", "remount,ro", m],
                           capture_output=True, text=True)
        if r.returncode:
            skip_case("cannot remount read-only: " + r.stderr.strip())
            return
        file_json(binary, path, ["-o", "R", "-S", "64K", "--buffered",
                                 "-P", "2"])
        check(digest(path) == before, "the read-only file changed")


def test_not_a_file_refused(binary):
    """[39 smaller] a FIFO (it ran until the stall bound), a directory, a
    character device, a socket: refused at once, naming what it is, and
    never opened (a FIFO's waiting writer is still waiting)."""
    with scratch() as d:
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        for op in ("W", "R"):
            refused_at_once(binary, fifo, op, ["a FIFO"], within=5.0)
        # never opened: a writer waiting for a reader is still waiting
        writer = subprocess.Popen([sys.executable, "-c",
                                   "import os, sys; print(flush=True); "
                                   "os.open(sys.argv[1], os.O_WRONLY)",
                                   fifo], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        try:
            writer.stdout.readline()
            time.sleep(0.5)  # into its open(), which waits for a reader
            for op in ("W", "R"):
                refused_at_once(binary, fifo, op, ["a FIFO"])
            check(writer.poll() is None, "rdmaperf opened the FIFO (its "
                  "writer's open returned)")
        finally:
            writer.kill()
            writer.wait()
            writer.stdout.close()
        refused_at_once(binary, d, "R", ["a directory"])
        refused_at_once(binary, "/dev/null", "W", ["a character device"])
        sock = os.path.join(d, "sock")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(sock)
            for op in ("W", "R"):
                refused_at_once(binary, sock, op, [sock, "a socket"])
        finally:
            s.close()


def test_file_size_bound(binary):
    """[39 smaller] --file-size's message and bound agree: 1024T is taken
    (the run then fails at the filesystem), 1025T and 1P are refused by a
    message that names 1024T."""
    for arg in ("1025T", "1P"):
        r = run(binary, ["-x", "file:/tmp/rp-never", "--file-size", arg])
        check(r.rc == 2 and "1024T" in r.err, lambda: r.describe())
    r = run(binary, ["-x", "file:/tmp/rp-never", "--file-size", "1024T",
                     "-C", "1", "--buffered"])
    check(r.rc in (0, 1) and "is not a size" not in r.err,
          lambda: "1024T: want it taken (the filesystem may refuse the "
          "region):\n" + r.describe())
    check(not os.path.exists("/tmp/rp-never"), "left /tmp/rp-never behind")


def test_mixed_with_tcp(binary):
    """-c with tcp and a file: the file runs here, tcp against the server,
    one comparison table; a server refuses a TEST of transport file."""
    with Server(binary) as srv, mounted("tmpfs", "size=16m") as d:
        if d is None:
            return
        path = os.path.join(d, "f")
        r = client(binary, srv.port, ["-x", "tcp,file:" + path, "-o", "W",
                                      "-C", "500", "--buffered"] +
                   QUICK_FILE)
        check(r.rc == 0 and "comparison (ratio to tcp)" in r.out and
              "file %s" % path in r.out, lambda: r.describe())
        doc = client(binary, srv.port, ["-x", "tcp,file:" + path, "-o", "W",
                                        "-C", "500", "--buffered", "--json"] +
                     QUICK_FILE).json()
        tcp, f = doc["results"]
        check(tcp["transport"] == "tcp" and tcp["ok"] and
              tcp["cpu"]["server"] is not None, "tcp %r" % tcp)
        check(f["transport"] == "file" and f["ok"] and f["file"]["path"] ==
              path and f["cpu"]["server"] is None, "file %r" % f)
        sock = ctl_connect(srv.port)
        try:
            sock.sendall(message(HELLO, hello_body()))
            check(recv_message(sock)[2] == HELLO, "no HELLO")
            sock.sendall(message(TEST, spec_body(transport="file")))
            check_error_message(recv_message(sock), code="transport",
                                words=("file", "client"))
        finally:
            sock.close()
        check(srv.alive() and os.listdir(d) == [], "server or file left")


if __name__ == "__main__":
    built = "not in this build" not in run(binary_from_argv(),
                                           ["--help"]).out
    if not built:
        log("skip: this rdmaperf has no file transport (no liburing); "
            "checking only that it says so")
        main([("not_built", test_not_built)])
    main([
        ("direct_write_read_verify", test_direct_write_read_verify),
        ("buffered_tmpfs", test_buffered_tmpfs),
        ("no_odirect", test_no_odirect),
        ("sweep_random_intervals", test_sweep_random_intervals),
        ("fsync_every", test_fsync_every),
        ("bad_values", test_bad_values),
        ("errors", test_errors),
        ("mixed_with_tcp", test_mixed_with_tcp),
        ("symlink_never_followed", test_symlink_never_followed),
        ("hard_link_never_written", test_hard_link_never_written),
        ("read_never_writes", test_read_never_writes),
        ("not_a_file_refused", test_not_a_file_refused),
        ("file_size_bound", test_file_size_bound),
    ])
