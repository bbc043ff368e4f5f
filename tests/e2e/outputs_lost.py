#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Issue 39, items 8 and 9: what the client prints must arrive, or it says
so, and what a server sends must not reach a terminal raw.

[8] output lost: text, --json, --csv and --json-stream of a real loopback
    run, -i interval lines, and --report of a saved document (a result
    and a --matrix one) written to a full disk (/dev/full), a closed pipe
    or a closed stdout: exit 1 and one line on stderr that names the
    output and the reason ("rdmaperf: writing the JSON to stdout: No space
    left on device"). Interval lines that cannot be written end the run.
[9] a fake server answers HELLO with a hostname holding a terminal escape
    ("ESC ]0;pwned BEL", which retitles a terminal), a 1 MiB hostname, and
    invalid UTF-8, puts more of the same into STREAMS, or answers TEST
    with an ERROR whose code and message hold escapes: the client's text,
    CSV and JSON hold no control byte but newline, CR and tab, no line of
    more than a few KB, and decode as UTF-8; the JSON parses.

    python3 -B tests/e2e/outputs_lost.py /path/to/rdmaperf
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import e2elib  # noqa: E402
import faults_wire  # noqa: E402
from e2elib import (  # noqa: E402
    ERROR, HELLO, QUICK, RUN_TIMEOUT, STREAMS, TEST, VERSION, TestFailure,
    check, check_doc, command, header, log, main, recv_message)
from faults_wire import FakeServer  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MATRIX_DOC = os.path.join(HERE, "..", "fuzz", "corpus", "report",
                          "matrix_failed_rank")
LOOP = ["--loopback", "-x", "tcp", "-C", "200"] + QUICK
FORMATS = (([], "the text"), (["--json"], "the JSON"),
           (["--csv"], "the CSV"), (["--json-stream"], "the JSON lines"))


class Out:
    """A finished run: exit status, stdout and stderr as bytes."""

    def __init__(self, args, rc, out, err, seconds):
        self.args, self.rc, self.out, self.err = args, rc, out, err
        self.seconds = seconds

    def describe(self):
        return "rdmaperf %s\n  exit %s after %.2f s\n  stdout: %r\n  " \
            "stderr: %r" % (" ".join(self.args)[:300], self.rc, self.seconds,
                            self.out[-1500:], self.err[-1500:])


def run_bytes(binary, args, stdout=subprocess.PIPE, timeout=RUN_TIMEOUT):
    """rdmaperf @args to completion, stdout to @stdout (a file, or a
    pipe read here); a run past @timeout is a failure (a hang)."""
    args = [str(a) for a in args]
    t0 = time.monotonic()
    p = subprocess.Popen(command(binary) + args, stdin=subprocess.DEVNULL,
                         stdout=stdout, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise TestFailure("hung: still running after %d s: rdmaperf %s" %
                          (timeout, " ".join(args)))
    return Out(args, p.returncode, out or b"", err, time.monotonic() - t0)


def to_full(binary, args, timeout=RUN_TIMEOUT):
    with open("/dev/full", "wb") as full:
        return run_bytes(binary, args, stdout=full, timeout=timeout)


def lost_line(r, what, reason, words=()):
    """@r must have exited 1 with one line on stderr naming @what (the
    output) and @reason (strerror's text)."""
    want = "rdmaperf: writing %s to stdout: %s" % (what, reason)
    lines = r.err.decode(errors="replace").splitlines()
    check(r.rc == 1, lambda: "want exit 1 (the output was lost), got %s\n%s"
          % (r.rc, r.describe()))
    check(lines.count(want) == 1 and
          not any(l.startswith("rdmaperf: writing") and l != want
                  for l in lines),
          lambda: "want the one line %r on stderr\n%s" % (want, r.describe()))
    for w in words:
        check(w in lines, lambda: "stderr lacks %r\n%s" % (w, r.describe()))


# ---- [8] a real run to a full disk --------------------------------------


def full_case(flags, what):
    def case(binary):
        r = to_full(binary, LOOP + flags)
        lost_line(r, what, "No space left on device")
        log("  %s: exit 1: %s" % (what, r.err.decode().strip()))
    return case


def test_interval_full(binary):
    """[8] -i lines to a full disk: the run ends at the first lost line
    (not after -t 30), exit 1, one line."""
    for flags, what in (([], "the interval lines"),
                        (["--json-stream"], "the JSON lines")):
        r = to_full(binary, ["--loopback", "-x", "tcp", "-t", "30", "-i",
                             "0.2"] + QUICK + flags, timeout=40)
        lost_line(r, what, "No space left on device")
        check(r.seconds < 20, lambda: "%s: the run went on for %.1f s with "
              "its output lost\n%s" % (what, r.seconds, r.describe()))


def test_interval_closed_pipe(binary):
    """[8] -i lines into a pipe whose reader left (| head -1): EPIPE, not
    SIGPIPE nor a run that goes on unseen."""
    rfd, wfd = os.pipe()
    t0 = time.monotonic()
    p = subprocess.Popen(command(binary) + ["--loopback", "-x", "tcp", "-t",
                                            "30", "-i", "0.2"] + QUICK,
                         stdin=subprocess.DEVNULL, stdout=wfd,
                         stderr=subprocess.PIPE)
    os.close(wfd)
    with os.fdopen(rfd, "rb") as reader:
        first = reader.readline()
    try:
        _, err = p.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise TestFailure("hung after its reader left")
    r = Out(p.args[1:], p.returncode, first, err, time.monotonic() - t0)
    check(first.startswith(b"tcp write"), lambda: "no first interval line\n"
          + r.describe())
    lost_line(r, "the interval lines", "Broken pipe")
    check(r.seconds < 20, lambda: "the run went on for %.1f s\n%s" %
          (r.seconds, r.describe()))


def test_closed_stdout(binary):
    """[8] stdout closed (>&-): the run's sockets must not take its
    number (the report written into them); the write fails, and says so."""
    r = run_bytes(binary, LOOP, stdout=subprocess.DEVNULL)
    check(r.rc == 0, lambda: "the run itself fails\n" + r.describe())
    t0 = time.monotonic()
    p = subprocess.Popen(command(binary) + LOOP, stdin=subprocess.DEVNULL,
                         stderr=subprocess.PIPE,
                         preexec_fn=lambda: os.close(1))
    _, err = p.communicate(timeout=RUN_TIMEOUT)
    r = Out(LOOP, p.returncode, b"", err, time.monotonic() - t0)
    lost_line(r, "the text", "Bad file descriptor")


# ---- [8] --report of a saved document to a full disk --------------------


def test_report_full(binary):
    """[8] --report of a saved result and of a --matrix document, in each
    format, to a full disk."""
    with tempfile.TemporaryDirectory() as tmp:
        doc = os.path.join(tmp, "saved.json")
        with open(doc, "wb") as f:
            r = run_bytes(binary, LOOP + ["--json"], stdout=f)
        check(r.rc == 0, lambda: "saving a result\n" + r.describe())
        for path in (doc, MATRIX_DOC):
            for flags, what in FORMATS[:3]:
                r = to_full(binary, ["--report", path] + flags)
                lost_line(r, what, "No space left on device")
                ok = run_bytes(binary, ["--report", path] + flags)
                check(ok.rc == 0 and ok.out and not ok.err,
                      lambda: "to a pipe it fails\n" + ok.describe())


# ---- [9] a hostile server ------------------------------------------------

ESC_TITLE = "\x1b]0;pwned\x07"
BAD_UTF8 = b"\xff\xfe\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80"  # each invalid
PLACE = "@@BAD@@"  # stands in the JSON text for the raw bytes
BIG = 1 << 20  # the hostname: most of the protocol's 1 MiB body
LINE_MAX = 4096


def raw_message(mtype, body):
    """@body's JSON with every PLACE as BAD_UTF8's raw bytes."""
    data = json.dumps(body).encode().replace(PLACE.encode(), BAD_UTF8)
    return header(mtype, len(data)) + data


def hostile_host(kind):
    h = dict(faults_wire.FAKE_HOST, proto=VERSION)
    if kind == "escape":
        h["hostname"] = "fake" + ESC_TITLE + "\x1b[2J\x9b31m"
        h["os"] = "\x1b[31mred"
    elif kind == "plain":
        pass
    elif kind == "huge":
        h["hostname"] = "h" * (BIG - 1024)
    else:
        h["hostname"] = "bad" + PLACE + "utf8"
        h["kernel"] = PLACE
        h[PLACE] = "a key of invalid UTF-8"
    return h


class HostileServer(FakeServer):
    """faults_wire.FakeServer whose HELLO and STREAMS carry @kind's
    strings (escape, huge, utf8): it sends through message(), looked up
    in faults_wire's namespace, replaced for the session's length."""

    lock = threading.Lock()

    def __init__(self, kind):
        FakeServer.__init__(self, lifetime=30.0)
        self.kind = kind

    def _session(self, ctl):
        plain = faults_wire.message
        kind = self.kind

        def message(mtype, body=None, version=VERSION):
            if mtype == HELLO:
                return raw_message(HELLO, hostile_host(kind))
            if mtype == STREAMS:
                for s in body["streams"]:
                    s["wait"] = ESC_TITLE if kind != "utf8" else PLACE
                    s["note"] = ESC_TITLE * 2
            return raw_message(mtype, body) if body is not None \
                else plain(mtype, body, version)

        with HostileServer.lock:
            faults_wire.message = message
            try:
                FakeServer._session(self, ctl)
            finally:
                faults_wire.message = plain


class ErrorServer(threading.Thread):
    """HELLO answered with @kind's host, then TEST with an ERROR whose
    code and message hold escapes and invalid UTF-8."""

    def __init__(self, kind):
        threading.Thread.__init__(self, daemon=True)
        self.kind, self.error = kind, None
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(1)
        self.lsock.settimeout(30)
        self.port = self.lsock.getsockname()[1]

    def run(self):
        try:
            ctl, _ = self.lsock.accept()
            ctl.settimeout(30)
            check(recv_message(ctl)[2] == HELLO, "want HELLO")
            ctl.sendall(raw_message(HELLO, hostile_host(self.kind)))
            check(recv_message(ctl)[2] == TEST, "want TEST")
            ctl.sendall(raw_message(ERROR, {
                "code": "busy\x1b[2J" + PLACE,
                "message": "go away " + ESC_TITLE + "\x1b[31m" + PLACE +
                           "x" * 5000}))
            e2elib.read_to_eof(ctl, 10)
            ctl.close()
        except Exception as e:  # reported by the test
            self.error = "%s: %s" % (type(e).__name__, e)
        finally:
            self.lsock.close()


def clean_bytes(data, what, r):
    """@data (an output of @r) must be safe for a terminal."""
    bad = [b for b in set(data) if (b < 0x20 and b not in b"\n\r\t") or
           b == 0x7f]
    check(not bad, lambda: "%s holds control bytes %r\n%s" %
          (what, sorted(bad), r.describe()))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TestFailure("%s is not UTF-8 (%s)\n%s" % (what, e,
                                                        r.describe()))
    check("\x9b" not in text, lambda: "%s holds a C1 CSI\n%s" %
          (what, r.describe()))
    longest = max([len(l) for l in data.split(b"\n")] + [0])
    check(longest <= LINE_MAX, lambda: "%s has a line of %d bytes\n%s" %
          (what, longest, r.describe()[:3000]))
    return text


def hostile_run(binary, server, flags, failed):
    server.start()
    args = ["-c", "-a", "127.0.0.1", "-p", server.port, "-x", "tcp", "-o",
            "write", "-S", "4096", "-q", "8", "-C", "2000", "--warmup", "0",
            "--no-latency"] + flags
    try:
        r = run_bytes(binary, args)
    finally:
        server.join(15)
    check(server.error is None, "the fake server broke: %s" % server.error)
    check(r.rc == (1 if failed else 0), lambda: "exit %s, want %d\n%s" %
          (r.rc, 1 if failed else 0, r.describe()))
    out = clean_bytes(r.out, "stdout", r)
    clean_bytes(r.err, "stderr", r)
    if "--json" in flags:
        try:
            doc = json.loads(out)
        except ValueError as e:
            raise TestFailure("the JSON does not parse (%s)\n%s" %
                              (e, r.describe()))
        check_doc(doc, r.describe)
        host = doc["hosts"]["server"]["hostname"] if doc.get("hosts") and \
            doc["hosts"].get("server") else ""
        check(len(host.encode()) < LINE_MAX, "the hostname kept whole")
    return r, out


def hostile_case(kind, failed):
    def case(binary):
        for flags in ([], ["--csv"], ["--json"]):
            srv = ErrorServer(kind) if failed else HostileServer(kind)
            r, out = hostile_run(binary, srv, flags, failed)
            shown = out if flags else out + r.err.decode()
            if not flags and not failed:
                check("server fake" in shown or "server h" in shown or
                      "server bad" in shown, lambda: "no server line\n" +
                      r.describe())
            if failed:
                check("go away" in out + r.err.decode(),
                      lambda: "the server's message is not shown\n" +
                      r.describe())
        log("  %s: clean in text, CSV and JSON" % kind)
    return case


TESTS = [(("full_" + (f[0][2:] if f else "text")).replace("-", "_"),
          full_case(f, what)) for f, what in FORMATS] + [
    ("interval_full", test_interval_full),
    ("interval_closed_pipe", test_interval_closed_pipe),
    ("closed_stdout", test_closed_stdout),
    ("report_full", test_report_full),
    ("hostile_hello_escape", hostile_case("escape", False)),
    ("hostile_hello_huge", hostile_case("huge", False)),
    ("hostile_hello_utf8", hostile_case("utf8", False)),
    ("hostile_error_escape", hostile_case("escape", True)),
    ("hostile_error_utf8", hostile_case("utf8", True)),
    ("hostile_error_only", hostile_case("plain", True)),
]

if __name__ == "__main__":
    main(TESTS)
