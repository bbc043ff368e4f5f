#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Access control (--allow, --auth-key) against real server processes.

  --allow   a client outside every prefix is closed before a byte is
            exchanged: it fails fast and clearly, the server lives on and
            logs one line; a client inside runs its test.
  --auth-key  the same key on both sides runs a test; a wrong key, or a
            key missing on either side, is refused with "authentication
            failed" (exit 1, a valid document under --json, error code
            "auth"); a keyed server tells a raw client nothing about its
            host before the proof; a key file others may read, an empty
            one, or a bad prefix is a usage error (exit 2).

    python3 tests/e2e/access.py /path/to/rdmaperf
"""
import json
import os
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (ERROR, HELLO, QUICK, USAGE_LINE, VERSION,  # noqa: E402
                    LoudServer, Server, check, client, ctl_connect,
                    free_port, main, message, parse_messages, read_to_eof,
                    recv_message, run)

AUTH = 11  # src/proto/proto.h RP_MSG_AUTH
FAST = 5.0  # seconds: a refused client must not wait for a timeout
SMALL = QUICK + ["-x", "tcp", "-S", "4K", "-C", "1000"]
KEYS = tempfile.mkdtemp(prefix="rdmaperf-access-")


def key_file(name, data, mode=0o600):
    path = os.path.join(KEYS, name)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(path, mode)
    return path


def told_busy(r):
    """Whether the server was still releasing the previous session."""
    try:
        doc = json.loads(r.out)
    except ValueError:
        return "FAILED (busy)" in r.out
    return (doc.get("error") or {}).get("code") == "busy"


def refused(binary, port, args, words, code):
    """A client run that must fail (exit 1) with @words on stderr and
    @code in its --json document; retried while the server is "busy"
    releasing the previous refused session."""
    for json_mode in (False, True):
        extra = ["--json"] if json_mode else []
        deadline = time.monotonic() + 10
        while True:
            r = client(binary, port, SMALL + list(args) + extra)
            if not told_busy(r) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        check(r.rc == 1, lambda: "want exit 1:\n" + r.describe())
        check(r.seconds < FAST, lambda: "took %.1f s:\n%s" %
              (r.seconds, r.describe()))
        if not json_mode:
            for w in words:
                check(w in r.err, lambda: "stderr lacks %r:\n%s" %
                      (w, r.describe()))
            continue
        doc = r.json()
        err = doc.get("error") or {}
        check(err.get("code") == code, lambda: "error code %r, want %r:\n%s"
              % (err.get("code"), code, r.describe()))
        check(all(w in err.get("message", "") for w in words[:1]),
              lambda: "error message %r lacks %r" % (err, words[:1]))


def ran(binary, port, args):
    """A client run that must succeed; returns its document."""
    deadline = time.monotonic() + 10
    while True:
        r = client(binary, port, SMALL + list(args) + ["--json"])
        if r.rc == 0 or not told_busy(r) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    check(r.rc == 0, lambda: "client failed:\n" + r.describe())
    doc = r.json()
    res = doc["results"][0]
    check(res.get("bandwidth") or res.get("latency"),
          lambda: "no figures in %r" % res)
    return doc


# ---- --allow -------------------------------------------------------------


def test_allow_refuses(binary):
    with LoudServer(binary, ["--allow", "10.0.0.0/8,fd00::/8"]) as srv:
        refused(binary, srv.port, [], ["--allow"], "control")
        # A raw client: closed without a byte either way.
        s = ctl_connect(srv.port)
        try:
            data = read_to_eof(s, FAST)
        except ConnectionResetError:
            data = b""
        finally:
            s.close()
        check(data == b"", "a refused peer got %r" % data[:100])
        time.sleep(0.2)
        check(srv.alive(), "the server died:\n" + srv.stderr())
        lines = srv.lines("refused: not in --allow")
        check(len(lines) == 3, lambda: "want one log line per refused "
              "connection (3), got:\n" + srv.stderr())
        check(lines[0].startswith("rdmaperf server: 127.0.0.1:"),
              "log line %r does not name the peer" % lines[0])


def test_allow_admits(binary):
    with Server(binary, ["--allow", "10.0.0.0/8,127.0.0.0/8"]) as srv:
        ran(binary, srv.port, [])
    with Server(binary, ["--allow", "127.0.0.1", "--allow", "::1"]) as srv:
        ran(binary, srv.port, [])


# ---- --auth-key ------------------------------------------------------------


def test_same_key(binary):
    # The trailing newline is no part of the key: these two are one key.
    k1 = key_file("same-a", b"open sesame\n")
    k2 = key_file("same-b", b"open sesame")
    with LoudServer(binary, ["--auth-key", k1]) as srv:
        doc = ran(binary, srv.port, ["--auth-key", k2])
        host = doc["hosts"]["server"]
        check(isinstance(host, dict) and host.get("hostname"),
              "no server host after the proof: %r" % host)
        check(not srv.lines("refused"), srv.stderr())


def test_wrong_key(binary):
    k1 = key_file("wrong-a", b"open sesame")
    k2 = key_file("wrong-b", b"open sesame!")
    with LoudServer(binary, ["--auth-key", k1]) as srv:
        refused(binary, srv.port, ["--auth-key", k2],
                ["authentication failed"], "auth")
        check(srv.alive(), "the server died:\n" + srv.stderr())
        check(srv.lines("refused: authentication failed"),
              lambda: "the server did not log the refusal:\n" +
              srv.stderr())


def test_client_without_key(binary):
    k = key_file("server-only", b"open sesame")
    with Server(binary, ["--auth-key", k]) as srv:
        refused(binary, srv.port, [], ["authentication failed"], "auth")
        ran(binary, srv.port, ["--auth-key", k])  # still serving


def test_server_without_key(binary):
    k = key_file("client-only", b"open sesame")
    with Server(binary) as srv:
        refused(binary, srv.port, ["--auth-key", k],
                ["authentication failed", "does not authenticate"], "auth")
        ran(binary, srv.port, [])


def messages_until_close(s):
    try:
        return parse_messages(read_to_eof(s, 15))
    except ConnectionResetError:
        return []


def test_raw_client_learns_nothing(binary):
    """Before the proof, nothing a keyed server sends names its host."""
    k = key_file("raw", b"open sesame")
    with Server(binary, ["--auth-key", k]) as srv:
        s = ctl_connect(srv.port)
        try:
            s.sendall(message(HELLO, {"proto": VERSION, "hostname": "x"}))
            msgs = messages_until_close(s)
        finally:
            s.close()
        check([m[2] for m in msgs] == [ERROR], "want one ERROR, got %r" %
              msgs)
        check(msgs[0][4] == {"code": "auth",
                             "message": "authentication failed"},
              "ERROR %r gives more away" % (msgs[0][4],))
        # With a nonce: the AUTH reply holds a nonce and a proof only; a
        # made-up proof ends it with the same one ERROR.
        s = ctl_connect(srv.port)
        try:
            s.sendall(message(HELLO, {"proto": VERSION,
                                      "auth": "hmac-sha256",
                                      "nonce": "ab" * 32}))
            m = recv_message(s)
            check(m[2] == AUTH and sorted(m[4]) == ["mac", "nonce"],
                  "want AUTH {nonce, mac}, got %r" % (m,))
            s.sendall(message(AUTH, {"mac": "cd" * 32}))
            msgs = messages_until_close(s)
        finally:
            s.close()
        check([m[2] for m in msgs] == [ERROR] and
              msgs[0][4].get("code") == "auth", "want ERROR auth: %r" % msgs)
        check(srv.alive(), "the server died:\n" + srv.stderr())
        ran(binary, srv.port, ["--auth-key", k])


# ---- usage errors ------------------------------------------------------------


def usage_error(binary, args, words):
    r = run(binary, args, timeout=20)
    check(r.rc == 2, lambda: "want exit 2:\n" + r.describe())
    lines = r.err.splitlines()
    check(len(lines) == 2 and lines[1] == USAGE_LINE,
          lambda: "want one error line:\n" + r.describe())
    for w in words:
        check(w in lines[0], "error line %r lacks %r" % (lines[0], w))


def test_key_file_refused(binary):
    port = str(free_port())
    big = key_file("big", b"k" * 257)
    cases = [
        (key_file("open", b"open sesame", 0o644), ["--auth-key",
                                                  "permissions 0644"]),
        (key_file("group", b"open sesame", 0o640), ["permissions 0640"]),
        (key_file("empty", b""), ["--auth-key", "empty"]),
        (key_file("newline", b"\n"), ["empty"]),
        (big, ["more than 256 bytes"]),
        (os.path.join(KEYS, "nosuch"), ["cannot open", "nosuch"]),
        (KEYS, ["not a regular file"]),
    ]
    for path, words in cases:
        usage_error(binary, ["-s", "-p", port, "--auth-key", path],
                    words + [os.path.basename(path)])
        usage_error(binary, ["-c", "-a", "127.0.0.1", "-p", port,
                             "--auth-key", path], words)
    ok = key_file("max", b"k" * 256 + b"\n")
    r = run(binary, ["-c", "-a", "127.0.0.1", "-p", port, "--auth-key",
                     ok] + SMALL, timeout=20)
    check(r.rc == 1 and "cannot reach" in r.err,
          lambda: "a 256-byte key: want only the connection to fail:\n" +
          r.describe())


def test_bad_prefixes(binary):
    cases = [
        ("10.0.0.1/8", ["'10.0.0.1/8'", "10.0.0.0/8"]),
        ("fd00::1/8", ["'fd00::1/8'", "fd00::/8"]),
        ("10.0.0.0/33", ["'10.0.0.0/33'", "/33 is too long",
                         "at most /32"]),
        ("fd00::/129", ["'fd00::/129'", "/129 is too long", "at most /128"]),
        ("nonsense", ["'nonsense'"]),
        ("10.0.0.0/8,,::1", ["empty"]),
        ("10.0.0.0/8,bogus/3", ["'bogus/3'"]),
        (",".join("10.0.%d.0/24" % i for i in range(17)),
         ["at most 16", "'10.0.16.0/24'"]),
    ]
    for arg, words in cases:
        usage_error(binary, ["-s", "-p", str(free_port()), "--allow", arg],
                    ["--allow"] + words)


TESTS = [
    ("allow_refuses", test_allow_refuses),
    ("allow_admits", test_allow_admits),
    ("same_key", test_same_key),
    ("wrong_key", test_wrong_key),
    ("client_without_key", test_client_without_key),
    ("server_without_key", test_server_without_key),
    ("raw_client_learns_nothing", test_raw_client_learns_nothing),
    ("key_file_refused", test_key_file_refused),
    ("bad_prefixes", test_bad_prefixes),
]

if __name__ == "__main__":
    try:
        main(TESTS)
    finally:
        for name in os.listdir(KEYS):
            os.unlink(os.path.join(KEYS, name))
        os.rmdir(KEYS)
