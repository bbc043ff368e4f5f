# SPDX-License-Identifier: MIT
"""
Helpers shared by the end-to-end tests (standard library only).

Each test file imports this module from its own directory, so every file
stays runnable alone: python3 tests/e2e/X.py /path/to/rdmaperf
"""
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback

# Every JSON document a test reads is validated against schema/ by
# tests/tools/check_json.py. It needs python3-jsonschema
# (scripts/install-deps.sh); without it each such test fails, saying so,
# rather than passing unvalidated.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
try:
    import check_json
    _CHECK_JSON_ERROR = None
except ImportError as _e:
    check_json = None
    _CHECK_JSON_ERROR = str(_e)

# Control protocol (src/proto/proto.h).
MAGIC = 0x52445046  # "RDPF"
VERSION = 0x0200  # major 2, minor 0 (several streams, sweeps, bidir)
HDR = struct.Struct(">IHHI")  # magic, version, type, length; big-endian
HELLO, TEST, SETUP, START, READY, STOP, DONE, BYE, ERROR, STREAMS = range(1, 11)

# Small, quick runs: the test machine has 2 cores and is shared.
QUICK = ["--warmup", "100", "--lat-iterations", "200"]
RUN_TIMEOUT = 60  # seconds for one client run; generous, never expected
USAGE_LINE = "Try 'rdmaperf --help'."


class TestFailure(AssertionError):
    pass


def check(cond, msg):
    """Assert @cond; @msg may be a string or a callable that builds one."""
    if not cond:
        raise TestFailure(msg() if callable(msg) else msg)


_log_to = threading.local()  # .lines: a Background case's log, held


def log(msg):
    lines = getattr(_log_to, "lines", None)
    if lines is not None:
        lines.append(msg)
    else:
        print(msg, flush=True)


# ---- processes ---------------------------------------------------------


class Run:
    """The outcome of one finished rdmaperf process."""

    def __init__(self, args, rc, out, err, seconds):
        self.args, self.rc, self.out, self.err = args, rc, out, err
        self.seconds = seconds

    def describe(self):
        return "rdmaperf %s\n  exit %s after %.2f s\n  stdout: %s\n  stderr: %s" % (
            " ".join(self.args), self.rc, self.seconds,
            self.out[-3000:].strip() or "(empty)",
            self.err[-3000:].strip() or "(empty)")

    def json(self):
        """stdout as one JSON document, valid against the schema."""
        try:
            doc = json.loads(self.out)
        except ValueError as e:
            raise TestFailure("stdout is not one JSON document (%s)\n%s" %
                              (e, self.describe()))
        check_doc(doc, lambda: self.describe())
        return doc


def check_doc(doc, context=""):
    """@doc must be a valid rdmaperf/1 document
    (schema/rdmaperf-1.schema.json); @context (a string, or a callable that
    builds one) says where it came from when it is not."""
    check(check_json is not None,
          lambda: "cannot validate JSON output: " + _CHECK_JSON_ERROR)
    errors = check_json.validate_doc(doc)
    check(not errors, lambda: "the JSON document does not match the schema:"
          "\n  " + "\n  ".join(errors[:20]) + "\n" +
          (context() if callable(context) else context))


def check_stream(lines, context=""):
    """@lines (--json-stream output) must each be valid, the last a
    summary (schema/rdmaperf-stream-1.schema.json)."""
    check(check_json is not None,
          lambda: "cannot validate JSON output: " + _CHECK_JSON_ERROR)
    errors = check_json.validate_stream_lines(lines)
    check(not errors, lambda: "the JSON lines do not match the schema:"
          "\n  " + "\n  ".join(errors[:20]) + "\n" +
          (context() if callable(context) else context))


def command(binary):
    """The argv prefix that runs rdmaperf: @binary is a path, or a list
    (a wrapper and its arguments, then the program: tests/interop)."""
    return list(binary) if isinstance(binary, (list, tuple)) else [binary]


def run(binary, args, timeout=RUN_TIMEOUT, env=None):
    """Run rdmaperf to completion, in @env (None: this one); a run past
    @timeout is a failure (hang)."""
    args = [str(a) for a in args]
    t0 = time.monotonic()
    p = subprocess.Popen(command(binary) + args, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, errors="replace", env=env)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise TestFailure("hung: still running after %d s: rdmaperf %s\n"
                          "stdout: %s\nstderr: %s" %
                          (timeout, " ".join(args), out[-2000:], err[-2000:]))
    return Run(args, p.returncode, out, err, time.monotonic() - t0)


def start(binary, args):
    """Start rdmaperf in the background (caller waits/kills)."""
    return subprocess.Popen(command(binary) + [str(a) for a in args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            errors="replace")


def finish(p, timeout=RUN_TIMEOUT):
    """Wait for a start()ed process; returns a Run."""
    t0 = time.monotonic()
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise TestFailure("hung: %s still running after %d s\nstderr: %s" %
                          (p.args, timeout, err[-2000:]))
    return Run([str(a) for a in p.args[1:]], p.returncode, out, err,
               time.monotonic() - t0)


def client(binary, port, args, timeout=RUN_TIMEOUT):
    return run(binary, ["-c", "-a", "127.0.0.1", "-p", port] + list(args),
               timeout)


def client_json(binary, port, args, timeout=RUN_TIMEOUT):
    """A client run that must succeed; returns its JSON document."""
    r = client(binary, port, list(args) + ["--json"], timeout)
    check(r.rc == 0, lambda: "client failed:\n" + r.describe())
    return r.json()


def client_ok_eventually(binary, port, args, within=10.0):
    """
    A normal client run that must succeed, retrying only while the server
    answers "busy" (it may still be releasing the previous session), for at
    most @within seconds. Returns (document, seconds it took).
    """
    t0 = time.monotonic()
    while True:
        r = client(binary, port, list(args) + ["--json"])
        if r.rc == 0:
            return r.json(), time.monotonic() - t0
        busy = r.rc == 1 and '"busy"' in r.out
        check(busy and time.monotonic() - t0 < within,
              lambda: "no successful run within %.0f s:\n%s" %
              (within, r.describe()))
        time.sleep(0.1)


# ---- ports and the server ----------------------------------------------


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port



def socket_inodes(pid):
    """The inodes of process @pid's sockets (empty if /proc cannot tell)."""
    inodes = set()
    try:
        names = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return inodes
    for fd in names:
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[len("socket:["):-1])
    return inodes


def proc_tcp_rows():
    """The kernel's TCP sockets: (family, fields of a /proc/net/tcp{,6}
    line) for each, or None when /proc cannot tell (no table readable)."""
    rows, seen = [], False
    for name, family in (("/proc/net/tcp", socket.AF_INET),
                         ("/proc/net/tcp6", socket.AF_INET6)):
        try:
            with open(name) as f:
                lines = f.readlines()[1:]
        except OSError:
            continue
        seen = True
        rows.extend((family, line.split()) for line in lines)
    return rows if seen else None


def proc_port(fields):
    """The local port of a /proc/net/tcp line's @fields."""
    return int(fields[1].rsplit(":", 1)[1], 16)


def listening_sockets(pid):
    """(family, address as /proc/net/tcp{,6} writes it, port) of every TCP
    socket process @pid listens on."""
    inodes = socket_inodes(pid)
    return [(family, f[1].rsplit(":", 1)[0], proc_port(f))
            for family, f in proc_tcp_rows() or []
            if len(f) > 9 and f[3] == "0A" and f[9] in inodes]


def tree_pids(pid):
    """@pid and its descendants (a wrapper's program: tests/interop), as
    far as /proc/PID/task/TID/children tells."""
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        pids.append(p)
        try:
            tids = os.listdir("/proc/%d/task" % p)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/children" % (p, tid)) as f:
                    todo.extend(int(c) for c in f.read().split())
            except (OSError, ValueError):
                pass
    return pids


def _proc_listening(port, pid=None):
    """True/False from /proc/net/tcp{,6}; None if /proc cannot tell. With
    @pid, only a listener that process (or a child of it) holds counts:
    another test's server on the same port is not ours (free_port() can
    hand one port to two tests that ask at once, and the loser's bind
    fails while the winner listens)."""
    rows = proc_tcp_rows()
    if rows is None:
        return None
    mine = None
    if pid is not None:
        mine = set()
        for p in tree_pids(pid):
            mine |= socket_inodes(p)
    return any(len(f) > 9 and f[3] == "0A" and proc_port(f) == port and
               (mine is None or f[9] in mine) for _, f in rows)


def wait_listening(port, proc=None, timeout=10.0, owned=True):
    """
    Wait, bounded, until something listens on @port: @proc itself where
    it is given, so that a server whose bind lost the port to another
    test's is not taken for listening (it exits, and this returns False).
    Not @owned: any listener counts (under wine the sockets are
    wineserver's, a process outside @proc's tree).
    It looks at the kernel's socket table rather than connecting: a probe
    connection would be a session of its own to the server (and would end
    a --once server). Falls back to a connect probe only where /proc
    cannot tell.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        state = _proc_listening(
            port, proc.pid if proc is not None and owned else None)
        if state is None:
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                time.sleep(0.3)  # let the server release the probe session
                return True
            except OSError:
                pass
        elif state:
            return True
        time.sleep(0.05)
    return False


class Server:
    """rdmaperf -s on a free port; always stop() it (in a finally)."""

    def __init__(self, binary, extra=()):
        self.binary = binary
        self.extra = list(extra)
        self.proc = None
        self.port = None
        self.errfile = None

    quiet = True  # --quiet: no log lines (LoudServer keeps them)

    def start(self):
        for _ in range(5):  # a free port can be taken again meanwhile
            self.port = free_port()
            self.errfile = tempfile.TemporaryFile(mode="w+")
            self.proc = subprocess.Popen(
                command(self.binary) +
                ["-s", "-a", "127.0.0.1", "-p", str(self.port)] +
                (["--quiet"] if self.quiet else []) + self.extra,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=self.errfile)
            # a wrapper's program (wine) may hold its socket elsewhere
            if wait_listening(self.port, self.proc,
                              owned=isinstance(self.binary, str)):
                return self
            self.stop()
        raise TestFailure("the server did not start listening: %s" %
                          self.stderr())

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stderr(self):
        """The server's log so far. Read with pread: the server writes
        through the same open file, so a seek here would move its offset
        too, and a line it logged meanwhile would overwrite the start."""
        if not self.errfile:
            return ""
        fd = self.errfile.fileno()
        return os.pread(fd, os.fstat(fd).st_size, 0).decode(
            errors="replace")

    stop_grace = 5  # seconds between SIGTERM and SIGKILL in stop()

    def stop(self):
        """SIGTERM, then SIGKILL if it lingers. Returns the exit status."""
        rc = None
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout=self.stop_grace)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            rc = self.proc.returncode
            self.proc = None
        return rc

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        if self.errfile:
            self.errfile.close()
            self.errfile = None
        return False


class LoudServer(Server):
    """A server that logs, for tests that read its log."""

    quiet = False

    def lines(self, word):
        """The log lines that hold @word."""
        return [ln for ln in self.stderr().splitlines() if word in ln]


# ---- raw control protocol ----------------------------------------------


def header(mtype, length, magic=MAGIC, version=VERSION):
    return HDR.pack(magic, version, mtype, length)


def message(mtype, body=None, version=VERSION):
    data = b"" if body is None else json.dumps(body).encode()
    return header(mtype, len(data), version=version) + data


def ctl_connect(port, timeout=15.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.settimeout(timeout)
    return s


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise TestFailure("connection closed after %d of %d bytes" %
                              (len(buf), n))
        buf += chunk
    return buf


def recv_message(sock):
    """One control message: (magic, version, type, length, body object)."""
    magic, version, mtype, length = HDR.unpack(recv_exact(sock, HDR.size))
    check(length <= (1 << 20), "reply length %d over the protocol's 1 MiB" %
          length)
    raw = recv_exact(sock, length) if length else b""
    try:
        body = json.loads(raw.decode()) if raw else {}
    except ValueError as e:
        raise TestFailure("reply body is not JSON (%s): %r" % (e, raw[:200]))
    check(isinstance(body, dict), "reply body is not an object: %r" % body)
    return magic, version, mtype, length, body


def read_to_eof(sock, timeout):
    """All bytes until the peer closes, within @timeout seconds."""
    sock.settimeout(timeout)
    data = b""
    deadline = time.monotonic() + timeout
    try:
        while True:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk
    except socket.timeout:
        raise TestFailure("the server did not close the connection within "
                          "%.0f s (got %r)" % (timeout, data[:200]))


def parse_messages(data):
    """Split a byte string into control messages; anything left is a failure."""
    msgs = []
    while data:
        check(len(data) >= HDR.size, "truncated header: %r" % data)
        magic, version, mtype, length = HDR.unpack(data[:HDR.size])
        body = data[HDR.size:HDR.size + length]
        check(len(body) == length, "truncated body: %r" % data)
        obj = json.loads(body.decode()) if body else {}
        msgs.append((magic, version, mtype, length, obj))
        data = data[HDR.size + length:]
    return msgs


def check_error_message(m, code=None, words=()):
    """@m from recv_message/parse_messages must be a well-formed ERROR."""
    magic, version, mtype, length, body = m
    check(magic == MAGIC, "reply magic 0x%08x, want 0x%08x ('RDPF')" %
          (magic, MAGIC))
    check(version >> 8 == VERSION >> 8, "reply version 0x%04x, want major %d" %
          (version, VERSION >> 8))
    check(mtype == ERROR, "reply type %d, want ERROR (9): %r" % (mtype, body))
    check(length > 0, "ERROR with an empty body")
    check(isinstance(body.get("code"), str) and body["code"],
          "ERROR without a code: %r" % body)
    check(isinstance(body.get("message"), str) and body["message"],
          "ERROR without a message: %r" % body)
    if code is not None:
        check(body["code"] == code, "ERROR code %r, want %r: %r" %
              (body["code"], code, body))
    for w in words:
        check(w in body["message"], "ERROR message lacks %r: %r" % (w, body))
    return body


def hello_body():
    return {"proto": VERSION, "version": "e2e", "hostname": "e2e-test"}


def spec_body(**over):
    """A complete, valid TEST body (what rp_proto_spec_encode sends)."""
    spec = {"transport": "tcp", "op": "write", "size": 4096,
            "queue_depth": 8, "iterations": 100, "duration_ns": 0,
            "warmup": 0, "lat_iterations": 10, "latency": True,
            "bandwidth": True, "verify": False}
    spec.update(over)
    return spec


# ---- the test runner ---------------------------------------------------


class Background:
    """A case that mostly waits (a bound to run out, a peer's timeout),
    run in a thread of its own from the start while the others run in
    turn: its log is held, and test() stands in the list for it, printing
    that log and raising what it raised, in its turn."""

    def __init__(self, fn, within):
        self.fn, self.within = fn, within
        self.thread, self.lines, self.error = None, [], None

    def start(self, binary):
        if not self.thread:
            self.thread = threading.Thread(target=self._run, args=(binary,),
                                           daemon=True)
            self.thread.start()
        return self

    def _run(self, binary):
        _log_to.lines = self.lines
        try:
            self.fn(binary)
        except Exception as e:  # raised again by test(), in its turn
            self.error = (e, traceback.format_exc())

    def test(self, binary):
        self.start(binary).thread.join(self.within)
        for line in list(self.lines):
            log(line)
        check(not self.thread.is_alive(), "still running after %.0f s: hung"
              % self.within)
        if self.error:
            e, tb = self.error
            if isinstance(e, TestFailure):
                raise e
            raise TestFailure(tb)


def binary_from_argv():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: %s /path/to/rdmaperf\n" % sys.argv[0])
        sys.exit(2)
    binary = os.path.abspath(sys.argv[1])
    if not os.access(binary, os.X_OK):
        sys.stderr.write("%s: not an executable\n" % binary)
        sys.exit(2)
    return binary


def main(tests):
    """Run each (name, fn(binary)) in order; exit 1 if any failed."""
    binary = binary_from_argv()
    failed = []
    t_all = time.monotonic()
    for name, fn in tests:
        t0 = time.monotonic()
        try:
            fn(binary)
        except Exception as e:  # report every test, not just the first
            failed.append(name)
            log("FAIL %s (%.1f s)" % (name, time.monotonic() - t0))
            if isinstance(e, TestFailure):
                log("  " + str(e).replace("\n", "\n  "))
            else:
                log(traceback.format_exc())
        else:
            log("ok   %s (%.1f s)" % (name, time.monotonic() - t0))
    log("%d of %d passed in %.1f s" % (len(tests) - len(failed), len(tests),
                                       time.monotonic() - t_all))
    if failed:
        log("failed: " + ", ".join(failed))
    sys.exit(1 if failed else 0)


def built_with(binary, transport):
    """Whether --help's "Transports built in" line names @transport."""
    r = run(binary, ["--help"])
    return any(x.startswith("Transports built in") and
               (" %s" % transport) in x for x in r.out.splitlines())


def usage_error(binary, args, words):
    """rdmaperf @args is refused as bad input: exit 2, nothing on stdout,
    one line on stderr that holds @words, then the usage hint."""
    r = run(binary, args)
    lines = r.err.splitlines()
    check(r.rc == 2 and r.out == "" and len(lines) == 2 and
          lines[1] == USAGE_LINE and words in lines[0],
          lambda: "want exit 2 and one line with %r\n%s" %
          (words, r.describe()))


def main_or_skip(tests, skipped):
    """main(@tests); where all passed but @skipped (a list the tests fill
    with what they could not run here, and why) is not empty, exit 77
    saying so instead of 0."""
    try:
        main(tests)
    except SystemExit as e:
        if e.code == 0 and skipped:
            log("skipped: " + "; ".join(skipped))
            sys.exit(77)
        raise
