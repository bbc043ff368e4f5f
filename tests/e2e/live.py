#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
End to end over TCP on loopback: what a user sees while a test runs (issue
9): -i interval lines and the intervals in the JSON, --json-stream lines
(each valid alone, the summary last, also after SIGINT), JSON on stdout
for bad usage, and the progress line on a terminal.

    python3 tests/e2e/live.py /path/to/rdmaperf
"""
import json
import os
import pty
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (QUICK, check, check_doc, check_stream, main,  # noqa: E402
                    run, start)

LOOP = ["--loopback", "-x", "tcp"] + QUICK
INTERVAL_LINE = re.compile(r"^tcp write 64 KiB q16\s+(\d+\.\d\d)-\s*(\d+\.\d\d) s"
                           r"\s+(\d+\.\d+) Gb/s\s+[\d.]+ MiB/s\s+\d+ msg/s"
                           r"\s+p50 [\d.]+ us\s+p99 [\d.]+ us$")


def test_text_intervals(binary):
    """-i 0.5 for 2 s: a line per interval, in order, then the summary with
    the lowest and highest interval throughput."""
    r = run(binary, LOOP + ["-S", "64K", "-t", "2", "-i", "0.5"])
    check(r.rc == 0, r.describe)
    lines = [m for m in map(INTERVAL_LINE.match, r.out.splitlines()) if m]
    check(4 <= len(lines) <= 5, lambda: "interval lines:\n" + r.out)
    starts = [float(m.group(1)) for m in lines]
    check(starts == sorted(starts) and starts[0] == 0.0,
          lambda: "interval starts %r" % starts)
    check(re.search(r"intervals\s+lowest [\d.]+ Gb/s, highest [\d.]+ Gb/s "
                    r"\(\d+ intervals of 0.5 s\)", r.out),
          lambda: "no interval range in the summary:\n" + r.out)
    check(r.out.index("tcp write 64 KiB q16") < r.out.index("rdmaperf 0.1"),
          lambda: "interval lines after the summary:\n" + r.out)


def intervals_of(res):
    return res["intervals"]


def test_json_intervals(binary):
    """-i with --json: every completion in exactly one interval (their
    messages add up to the result's), per stream with -P 2, lengths close
    to -i except the last, the range among them."""
    r = run(binary, LOOP + ["-S", "16K", "-t", "2", "-i", "0.25", "-P", "2",
                            "--json"])
    check(r.rc == 0, r.describe)
    doc = r.json()
    res = doc["results"][0]
    ivs = intervals_of(res)
    check(doc["config"]["interval_s"] == 0.25, "config.interval_s")
    check(7 <= len(ivs) <= 9, lambda: "%d intervals in 2 s" % len(ivs))
    check(sum(i["messages"] for i in ivs) == res["messages"],
          lambda: "interval messages %d, result %d" %
          (sum(i["messages"] for i in ivs), res["messages"]))
    for k, iv in enumerate(ivs):
        check(iv["index"] == k, "index %r at %d" % (iv["index"], k))
        check(iv["bytes"] == iv["messages"] * 16384, "bytes of interval")
        if k < len(ivs) - 1:
            check(0.2 < iv["seconds"] < 0.4,
                  lambda: "interval %d lasts %r s" % (k, iv["seconds"]))
        ps = iv["per_stream"]
        check(len(ps) == 2 and sum(s["messages"] for s in ps) ==
              iv["messages"], lambda: "per_stream of interval %d: %r" %
              (k, ps))
    rng = res["interval_range"]
    full = [i["throughput"]["bits_per_second"] for i in ivs
            if i["seconds"] >= 0.125]
    check(rng["min_bits_per_second"] == min(full) and
          rng["max_bits_per_second"] == max(full),
          lambda: "range %r, intervals %r" % (rng, full))


def lines_of(r):
    return [ln for ln in r.out.splitlines() if ln.strip()]


def test_json_stream(binary):
    """--json-stream over a 2-point sweep: start, then per point a point
    line, its intervals and its result, then the summary; each line valid
    alone; the summary's results are the result lines'."""
    r = run(binary, LOOP + ["-S", "1K,64K", "-t", "1", "-i", "0.25",
                            "--json-stream"])
    check(r.rc == 0, r.describe)
    lines = lines_of(r)
    check_stream(lines, r.describe)
    objs = [json.loads(ln) for ln in lines]
    types = [o["type"] for o in objs]
    check(types[0] == "start" and types[-1] == "summary",
          lambda: "types %r" % types)
    shape = re.sub(r"(interval,)+", "I,", ",".join(types[1:-1]) + ",")
    check(shape == "point,I,result,point,I,result,",
          lambda: "line types %r" % types)
    results = [o["result"] for o in objs if o["type"] == "result"]
    check(results == objs[-1]["results"],
          "the result lines differ from the summary's results")
    for o in objs:
        if o["type"] == "interval":
            check(o["transport"] == "tcp" and o["point"] in (0, 1),
                  "interval line %r" % o)


def test_sigint_stream(binary):
    """SIGINT 3 s into -t 30 -i 1 --json-stream: valid lines only, the
    summary last, the point interrupted in its throughput phase with what
    it measured, exit status 130, soon."""
    p = start(binary, LOOP + ["-S", "64K", "-t", "30", "-i", "1",
                              "--json-stream"])
    time.sleep(4)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    took = time.monotonic() - t0
    lines = [ln for ln in out.splitlines() if ln.strip()]
    check_stream(lines, "stderr: " + err)
    last = json.loads(lines[-1])
    res = last["results"][0]
    check(p.returncode == 130, "exit status %r" % p.returncode)
    check(took < 10, "took %.1f s to stop after SIGINT" % took)
    check(res.get("interrupted") is True and res.get("phase") == "bandwidth",
          lambda: "result %r" % {k: res.get(k) for k in
                                 ("interrupted", "phase", "error")})
    check(res["messages"] > 0 and 1 <= len(res["intervals"]) <= 6,
          lambda: "%r messages, %d intervals" %
          (res["messages"], len(res["intervals"])))


def test_usage_json(binary):
    """Bad usage under --json or --json-stream: stdout is still JSON (the
    error as the document), exit status 2, the one-line error on stderr."""
    r = run(binary, ["--loopback", "--json", "-S", "0"])
    check(r.rc == 2 and "-S/--size" in r.err, r.describe)
    doc = r.json()
    check(doc["error"]["code"] == "usage" and
          "-S/--size" in doc["error"]["message"], lambda: repr(doc))
    r = run(binary, ["--loopback", "--json-stream", "--bogus"])
    check(r.rc == 2, r.describe)
    lines = lines_of(r)
    check(len(lines) == 1, lambda: "lines: %r" % lines)
    check_stream(lines, r.describe)
    check(json.loads(lines[0])["error"]["code"] == "usage", r.describe)
    r = run(binary, ["--report", "/nonexistent/run.json", "--json"])
    check(r.rc == 2 and "cannot read" in r.err, r.describe)
    check("cannot read" in r.json()["error"]["message"], r.describe)


def on_tty(binary, args):
    """Run with stderr on a pseudo-terminal: (exit status, stderr bytes)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([binary] + args, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    return p.wait(timeout=60), data


def test_progress(binary):
    """A terminal gets one live line (point k of n, elapsed, throughput),
    redrawn in place and cleared at the end; --quiet or a pipe gets none."""
    rc, err = on_tty(binary, LOOP + ["-S", "4K,64K", "-t", "2"])
    check(rc == 0, "exit status %r, stderr %r" % (rc, err[-500:]))
    check(re.search(rb"\r\x1b\[K\[point 2/2\] tcp write 64 KiB q16 +[\d.]+ s +"
                    rb"[\d.]+ Gb/s", err), "no progress line: %r" % err[-500:])
    check(err.endswith(b"\r\x1b[K"), "progress line left: %r" % err[-100:])
    rc, err = on_tty(binary, LOOP + ["-S", "64K", "-t", "3", "--quiet"])
    check(rc == 0 and b"[point" not in err, "--quiet: %r" % err[-300:])
    r = run(binary, LOOP + ["-S", "64K", "-t", "3"])
    check(r.rc == 0 and "[point" not in r.err, r.describe)


def test_report_roundtrip(binary):
    """--report of a saved --json gives the same document back, and the
    same text as ... the text of that document (no network)."""
    r = run(binary, LOOP + ["-S", "1K,4K", "-C", "2000", "-i", "0.1",
                            "--json"])
    check(r.rc == 0, r.describe)
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                        "rdmaperf-live-%d.json" % os.getpid())
    with open(path, "w") as f:
        f.write(r.out)
    try:
        again = run(binary, ["--report", path, "--json"])
        check(again.rc == 0 and again.out == r.out,
              lambda: "re-rendered JSON differs:\n" + again.describe())
        text = run(binary, ["--report", path])
        check(text.rc == 0 and "tcp write sweep, 2 points" in text.out,
              text.describe)
        bad = run(binary, ["--report", path, "-S", "4K"])
        check(bad.rc == 2 and "--report" in bad.err, bad.describe)
    finally:
        os.unlink(path)
    check_doc(json.loads(r.out), r.describe)


if __name__ == "__main__":
    main([
        ("text_intervals", test_text_intervals),
        ("json_intervals", test_json_intervals),
        ("json_stream", test_json_stream),
        ("sigint_stream", test_sigint_stream),
        ("usage_json", test_usage_json),
        ("progress", test_progress),
        ("report_roundtrip", test_report_roundtrip),
    ])
