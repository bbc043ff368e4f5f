# SPDX-License-Identifier: MIT
"""
What tests/e2e/faults.py needs beyond e2elib: a raw client that speaks the
control protocol and the data connections by hand (so that it can break
them on purpose), a fake server that gets the real client to its
throughput phase and then lies to it, and what /proc says about a process
(CPU time, descriptors, memory).

The data connection (src/xport/sock/sock.h): the connecting side first
sends the test's token, RP_TOKEN_LEN (32) bytes, the token's text padded
with zeros. Then, per op:

    op          initiator -> responder    responder -> initiator
    write/send  messages of size bytes    acks: 8-byte big-endian counts
                (latency phase: echoed byte for byte instead of acked)
    read        credits: 8-byte BE counts messages

Counters are cumulative since the point began.
"""
import json
import os
import select
import socket
import struct
import threading
import time

import e2elib  # noqa: E402
from e2elib import (  # noqa: E402
    BYE, DONE, ERROR, HDR, HELLO, MAGIC, READY, SETUP, START, STOP,
    STREAMS, TEST, VERSION, TestFailure, check, header,
    hello_body, message, parse_messages, recv_exact, recv_message)

TOKEN_LEN = 32  # RP_TOKEN_LEN
CTR = struct.Struct(">Q")


# ---- /proc --------------------------------------------------------------


def cpu_seconds(pid):
    """User + system CPU time of process @pid so far, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_share(pid, seconds=2.0):
    """The share of one core process @pid used over the next @seconds."""
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - c0) / (time.monotonic() - t0)


def _running_threads(pid):
    """How many threads of @pid are running or runnable (state R) now."""
    n = 0
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return 0
    for t in tasks:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, t)) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "R":
                    n += 1
        except (OSError, IndexError):
            pass
    return n


def busy_share(pid, seconds=2.0, every=0.02):
    """
    (cpu, runnable) of process @pid over the next @seconds: the share of
    one core it used, and the share of samples in which one of its threads
    was running or waiting to run. On a loaded machine a spinning thread
    gets little CPU but stays runnable; a thread that sleeps in poll() is
    neither.
    """
    c0, t0 = cpu_seconds(pid), time.monotonic()
    samples = busy = 0
    while time.monotonic() - t0 < seconds:
        samples += 1
        busy += _running_threads(pid) > 0
        time.sleep(every)
    cpu = (cpu_seconds(pid) - c0) / (time.monotonic() - t0)
    return cpu, busy / max(1, samples)


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def fd_list(pid):
    """What each descriptor of @pid points at, for a failure message."""
    out = []
    for fd in sorted(os.listdir("/proc/%d/fd" % pid), key=int):
        try:
            out.append("%s->%s" % (fd, os.readlink("/proc/%d/fd/%s" %
                                                   (pid, fd))))
        except OSError:
            pass
    return out


def status_kib(pid, key):
    """A field of /proc/PID/status in KiB: VmRSS, VmHWM (peak RSS)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise TestFailure("/proc/%d/status has no %s" % (pid, key))


def listening_ports(pid):
    """TCP ports process @pid listens on."""
    return {port for _, _, port in e2elib.listening_sockets(pid)}


# ---- the data connection -------------------------------------------------


def token_bytes(token):
    raw = token.encode()[:TOKEN_LEN]
    return raw + b"\0" * (TOKEN_LEN - len(raw))


def counter(value):
    return CTR.pack(value & 0xFFFFFFFFFFFFFFFF)


def data_connect(port, token, rcvbuf=None, sndbuf=None, timeout=5.0):
    """A data connection to @port that presents @token (a str, or raw
    bytes sent as they are). @rcvbuf/@sndbuf shrink the socket's buffers
    before it connects."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if sndbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    s.settimeout(timeout)
    s.connect(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(token if isinstance(token, bytes) else token_bytes(token))
    return s


def closed_by_peer(sock, timeout):
    """True when the peer closes (or resets) @sock within @timeout s;
    what it sent meanwhile is thrown away."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        r, _, _ = select.select([sock], [], [], left)
        if not r:
            return False
        try:
            if not sock.recv(65536):
                return True
        except (ConnectionResetError, BrokenPipeError):
            return True


# ---- a raw control session ---------------------------------------------


class Refused(Exception):
    """The server answered ERROR where the session wanted something else."""

    def __init__(self, body, msgs=None):
        Exception.__init__(self, "ERROR %r" % body)
        self.body = body
        self.msgs = msgs or []


def _name(mtype):
    names = {HELLO: "HELLO", TEST: "TEST", SETUP: "SETUP", START: "START",
             READY: "READY", STOP: "STOP", DONE: "DONE", BYE: "BYE",
             ERROR: "ERROR", STREAMS: "STREAMS"}
    return names.get(mtype, "type %d" % mtype)


class RawSession:
    """A client on the control connection, step by step; every step that
    gets an ERROR raises Refused."""

    def __init__(self, port, timeout=15.0):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.settimeout(timeout)
        self.token = None
        self.data_port = None
        self.data = []

    def send(self, mtype, body=None):
        self.sock.sendall(message(mtype, body))

    def send_raw(self, data):
        self.sock.sendall(data)

    def expect(self, want, what=""):
        m = recv_message(self.sock)
        check(m[0] == MAGIC, "reply magic 0x%08x" % m[0])
        if m[2] == ERROR and want != ERROR:
            raise Refused(m[4])
        check(m[2] == want, "%s: want %s, got %s: %r" %
              (what or "reply", _name(want), _name(m[2]), m[4]))
        return m[4]

    def hello(self):
        self.send(HELLO, hello_body())
        return self.expect(HELLO, "HELLO")

    def test(self, spec=None, raw_body=None):
        """TEST with @spec (a dict) or @raw_body (bytes, sent as they
        are); returns SETUP's body and keeps its token and port."""
        if raw_body is not None:
            self.send_raw(header(TEST, len(raw_body)) + raw_body)
        else:
            self.send(TEST, spec)
        setup = self.expect(SETUP, "TEST")
        self.token = setup.get("token")
        self.data_port = setup.get("endpoint", {}).get("port")
        check(isinstance(self.token, str) and self.data_port,
              "SETUP without token or port: %r" % setup)
        return setup

    def stream_token(self, i):
        """What data stream @i presents (no --auth-key): "TOKEN.i"."""
        return "%s.%d" % (self.token, i)

    def connect_data(self, n=1, **kw):
        for _ in range(n):
            self.data.append(data_connect(
                self.data_port, self.stream_token(len(self.data)), **kw))
        return self.data

    def streams(self, role="initiator"):
        info = [{"wait": "busy", "role": role, "buffer_numa_node": -1}
                for _ in self.data]
        self.send(STREAMS, {"streams": info})
        return self.expect(STREAMS, "STREAMS")

    def setup(self, spec, n=1, **kw):
        """HELLO, TEST, every data connection, STREAMS."""
        self.hello()
        self.test(spec)
        self.connect_data(n, **kw)
        self.streams()

    def start(self, phase, **kw):
        body = {"phase": phase}
        body.update(kw)
        self.send(START, body)
        return self.expect(READY, "START %s" % phase)

    def stop(self, phase, **kw):
        body = {"phase": phase}
        body.update(kw)
        self.send(STOP, body)
        return self.expect(DONE, "STOP %s" % phase)

    def bye(self):
        self.send(BYE)

    def wait_end(self, timeout):
        """Wait, reading only the control connection, until the server
        hangs up. Returns (seconds, [messages]) or (None, [messages so far])
        if it did not within @timeout."""
        t0 = time.monotonic()
        data = b""
        while True:
            left = timeout - (time.monotonic() - t0)
            if left <= 0:
                return None, _parse_some(data)
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                continue
            try:
                chunk = self.sock.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                chunk = b""
            if not chunk:
                return time.monotonic() - t0, _parse_some(data)
            data += chunk

    def close(self):
        for s in self.data:
            s.close()
        self.data = []
        self.sock.close()


def _parse_some(data):
    """The whole messages in @data (a tail cut short is left out)."""
    out = []
    while len(data) >= HDR.size:
        magic, version, mtype, length = HDR.unpack(data[:HDR.size])
        if len(data) < HDR.size + length:
            break
        out.extend(parse_messages(data[:HDR.size + length]))
        data = data[HDR.size + length:]
    return out


def describe_msgs(msgs):
    return ", ".join("%s %s" % (_name(m[2]), json.dumps(m[4])[:200])
                     for m in msgs) or "nothing"


# ---- a fake server -------------------------------------------------------


FAKE_HOST = {"hostname": "fake-server", "version": "0.1.0", "os": "Linux",
             "kernel": "fake", "machine": "x86_64", "cpus": 1}


def plain_done(messages, size):
    return {"messages": messages, "bytes": messages * size,
            "verify_errors": 0,
            "cpu": {"user_s": 0.001, "sys_s": 0.001, "us_per_kib": 0,
                    "cycles_per_kib": 0, "hz": 0, "host_busy_s": 0,
                    "host_util": 0, "hz_source": "none", "per_cpu": [],
                    "threads": []}}


class FakeServer(threading.Thread):
    """
    A server for one test of the real client over tcp, write op: HELLO,
    SETUP with a token, the data connection, STREAMS, then START/READY and
    STOP/DONE for each phase, echoing in the latency phase and acking the
    messages otherwise. Two hooks break it:
      ack(phase, received, posted_max) -> the ack to send for @received
          messages (None: the true count);
      done(phase, messages, size) -> the DONE body (None: a true one).
    What happened is in .events (strings), .client_error (the body of
    the client's ERROR, if it sent one) and .after_error (the names of
    the messages it sent after that ERROR, until it closed: a session
    says ERROR once).
    """

    def __init__(self, ack=None, done=None, silent_after=None,
                 lifetime=60.0):
        threading.Thread.__init__(self, daemon=True)
        self.ack_hook, self.done_hook = ack, done
        self.silent_after = silent_after  # a message type: then say nothing
        self.lifetime = lifetime
        self.events = []
        self.client_error = None
        self.after_error = None
        self.error = None
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(4)
        self.port = self.lsock.getsockname()[1]
        self.deadline = time.monotonic() + lifetime
        self.stop_flag = threading.Event()

    def run(self):
        try:
            self._serve()
        except Exception as e:  # reported by the test that reads it
            self.error = "%s: %s" % (type(e).__name__, e)
        finally:
            self.lsock.close()

    def note(self, what):
        self.events.append(what)

    def _left(self):
        return max(0.05, self.deadline - time.monotonic())

    def _recv(self, ctl):
        ctl.settimeout(self._left())
        return recv_message(ctl)

    def _client_erred(self, ctl, body):
        """The client's ERROR @body came: keep it, and what follows until
        the client closes (it waits a while for us to close first)."""
        self.client_error = body
        try:
            rest = e2elib.read_to_eof(ctl, min(5.0, self._left()))
        except (e2elib.TestFailure, OSError) as e:
            self.note("after the client's ERROR: %s" % e)
            return
        self.after_error = [_name(m[2]) for m in parse_messages(rest)]

    def _serve(self):
        self.lsock.settimeout(self._left())
        ctl, _ = self.lsock.accept()
        try:
            self._session(ctl)
        finally:
            ctl.close()

    def _quiet(self, mtype):
        if self.silent_after == mtype:
            self.note("silent after %s" % _name(mtype))
            while not self.stop_flag.is_set() and \
                    time.monotonic() < self.deadline:
                time.sleep(0.05)
            return True
        return False

    def _session(self, ctl):
        m = self._recv(ctl)
        check(m[2] == HELLO, "fake: want HELLO, got %s" % _name(m[2]))
        if self._quiet(HELLO):
            return
        body = dict(FAKE_HOST, proto=VERSION)
        ctl.sendall(message(HELLO, body))
        m = self._recv(ctl)
        check(m[2] == TEST, "fake: want TEST, got %s" % _name(m[2]))
        spec = m[4]
        if self._quiet(TEST):
            return
        dl = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        dl.bind(("127.0.0.1", 0))
        dl.listen(1)
        token = "f" * 24
        ctl.sendall(message(SETUP, {"token": token, "endpoint":
                                    {"port": dl.getsockname()[1]}}))
        dl.settimeout(self._left())
        data, _ = dl.accept()
        dl.close()
        try:
            data.settimeout(self._left())
            got = recv_exact(data, TOKEN_LEN)
            check(got == token_bytes(token + ".0"), "fake: token %r" % got)
            data.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            m = self._recv(ctl)
            check(m[2] == STREAMS, "fake: want STREAMS, got %s" % _name(m[2]))
            ctl.sendall(message(STREAMS, {"streams": [
                {"wait": "busy", "role": "responder",
                 "buffer_numa_node": -1}]}))
            self._phases(ctl, data, spec)
        finally:
            data.close()

    def _phases(self, ctl, data, spec):
        size = int(spec["size"])
        while time.monotonic() < self.deadline:
            m = self._recv(ctl)
            if m[2] in (BYE, ERROR):
                self.note(_name(m[2]))
                if m[2] == ERROR:
                    self._client_erred(ctl, m[4])
                return
            check(m[2] == START, "fake: want START, got %s" % _name(m[2]))
            phase = m[4].get("phase")
            depth = int(m[4].get("depth", spec["queue_depth"]))
            self.note("START %s" % phase)
            ctl.sendall(message(READY))
            if not self._one_phase(ctl, data, phase, size, depth):
                return

    def _one_phase(self, ctl, data, phase, size, depth):
        """Serve the data connection until STOP: True to go on."""
        received = 0  # bytes
        acked = 0
        lied = False
        while time.monotonic() < self.deadline:
            r, _, _ = select.select([ctl, data], [], [], 0.2)
            if ctl in r:
                m = self._recv(ctl)
                if m[2] == ERROR:
                    self.note("client ERROR in %s: %r" % (phase, m[4]))
                    self._client_erred(ctl, m[4])
                    return False
                check(m[2] == STOP, "fake: want STOP, got %s" % _name(m[2]))
                n = received // size
                body = self.done_hook(phase, n, size) if self.done_hook \
                    else None
                ctl.sendall(message(DONE, body if body is not None
                                    else plain_done(n, size)))
                self.note("DONE %s" % phase)
                return True
            if data not in r:
                continue
            try:
                chunk = data.recv(1 << 20)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                self.note("data connection closed in %s" % phase)
                return self._drain_ctl(ctl)
            if phase == "latency":
                data.sendall(chunk)  # echo
                received += len(chunk)
                continue
            received += len(chunk)
            n = received // size
            want = None
            if self.ack_hook and not lied:
                want = self.ack_hook(phase, n, depth)
                if want is not None:
                    lied = True
                    self.note("sent ack %d after %d messages" % (want, n))
            if want is None and n != acked:
                want = n
            if want is not None:
                acked = n
                try:
                    data.sendall(counter(want))
                except OSError:
                    pass
        return False

    def _drain_ctl(self, ctl):
        """The data connection went: wait for the client's word."""
        try:
            m = self._recv(ctl)
        except Exception:
            return False
        if m[2] == ERROR:
            self.client_error = m[4]
            self.note("client ERROR: %r" % (m[4],))
        return False

    def finish(self, timeout=10.0):
        self.stop_flag.set()
        self.join(timeout)
