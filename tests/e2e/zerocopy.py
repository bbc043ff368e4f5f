#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
--zerocopy (-Z) over TCP on loopback: the side that sends the messages sets
SO_ZEROCOPY and sends messages of 16 KiB or more with MSG_ZEROCOPY; the
result says so, with the sends the kernel notified and how many of them it
copied anyway (on loopback, every one). The figures stay right (both ends
count the same messages); --verify, other transports and a server asked
for either are refused.

Skipped (exit 77) where the kernel refuses SO_ZEROCOPY (before Linux 4.14,
or not Linux).

    python3 tests/e2e/zerocopy.py /path/to/rdmaperf
"""
import os
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (ERROR, HELLO, QUICK, TEST, USAGE_LINE, Server,  # noqa: E402
                    check, check_error_message, client, client_json,
                    ctl_connect, free_port, hello_body, log, main, message,
                    recv_message, run, spec_body)

SO_ZEROCOPY = getattr(socket, "SO_ZEROCOPY", 60)  # Linux's value
MIN_SIZE = 16384
ITERS = ["-C", "3000"]


def no_zerocopy():
    """Why this kernel cannot do it, or None."""
    if not sys.platform.startswith("linux"):
        return "MSG_ZEROCOPY is Linux's (this is %s)" % sys.platform
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_ZEROCOPY, 1)
    except OSError as e:
        return "the kernel refuses SO_ZEROCOPY (Linux 4.14 or later): %s" % e
    finally:
        s.close()
    return None


def zc_result(doc, size):
    """The one result, checked for what --zerocopy adds; returns it."""
    check(doc["config"].get("zerocopy") is True,
          "config.zerocopy %r" % doc["config"].get("zerocopy"))
    r = doc["results"][0]
    check(r["ok"] and r["error"] is None, "result failed: %r" % r["error"])
    z = r.get("zerocopy")
    check(isinstance(z, dict), "result.zerocopy %r" % z)
    check(z["min_size"] == MIN_SIZE, "zerocopy.min_size %r" % z["min_size"])
    for side in ("client", "server"):
        c = z[side]
        check(c["sends"] <= c["issued"] and c["copied"] <= c["sends"],
              "zerocopy.%s inconsistent: %r" % (side, c))
    check(z["sends"] == z["client"]["sends"] + z["server"]["sends"] and
          z["copied"] == z["client"]["copied"] + z["server"]["copied"],
          "zerocopy sums %r" % z)
    check(r["size"] == size, "size %r" % r["size"])
    return r


def check_figures(r, size):
    """The figures are still right: both ends saw every message whole."""
    check(r["messages"] > 0 and r["bytes"] == r["messages"] * size,
          "bytes %r for %r messages of %d" % (r["bytes"], r["messages"], size))
    srv = r["cpu"]["server"]
    check(srv["messages"] == r["messages"] and srv["bytes"] == r["bytes"],
          "the server counted %r messages, %r bytes; the client %r, %r" %
          (srv["messages"], srv["bytes"], r["messages"], r["bytes"]))


def check_sender(z, info, who):
    """@who sent zero copy: notified sends, every one copied on
    loopback, and its stream says SO_ZEROCOPY was set."""
    check(info.get("zerocopy") is True,
          "%s stream info zerocopy %r" % (who, info.get("zerocopy")))
    check(z[who]["sends"] > 0, "no zero-copy send of the %s notified: %r" %
          (who, z))
    # loopback: the receiver would read the sender's pages, so the kernel
    # copies every one and says so (SO_EE_CODE_ZEROCOPY_COPIED)
    check(z[who]["copied"] == z[who]["sends"],
          "loopback, yet not every zero-copy send was copied: %r" % z)


def test_write_64k(binary):
    with Server(binary) as srv:
        doc = client_json(binary, srv.port,
                          ["-x", "tcp", "-o", "write", "-S", "64K", "-q",
                           "16", "--zerocopy"] + ITERS + QUICK)
    r = zc_result(doc, 65536)
    check_figures(r, 65536)
    z = r["zerocopy"]
    check_sender(z, r["client_transport"], "client")
    check(z["server"]["issued"] == 0 and
          "zerocopy" not in r["server_transport"],
          "the write responder sent zero copy: %r %r" %
          (z, r["server_transport"]))
    log("  write 64K: %d sends notified, %d copied" %
        (z["sends"], z["copied"]))


def test_text_line(binary):
    with Server(binary) as srv:
        r = client(binary, srv.port, ["-x", "tcp", "-S", "64K", "-Z"] +
                   ITERS + QUICK)
    check(r.rc == 0, lambda: "client failed:\n" + r.describe())
    lines = [ln for ln in r.out.splitlines() if "zerocopy" in ln]
    check(len(lines) == 1, lambda: "want one zerocopy line:\n" + r.out)
    check("sends notified" in lines[0] and "copied" in lines[0],
          "zerocopy line %r" % lines[0])


def test_read_server_sends(binary):
    """read: the server sends the messages, so it sends zero copy."""
    with Server(binary) as srv:
        doc = client_json(binary, srv.port,
                          ["-x", "tcp", "-o", "read", "-S", "64K", "-q", "8",
                           "--zerocopy"] + ITERS + QUICK)
    r = zc_result(doc, 65536)
    check(r["bytes"] == r["messages"] * 65536, "bytes %r" % r["bytes"])
    check(r["zerocopy"]["client"]["issued"] == 0,
          "the read initiator sent zero copy: %r" % r["zerocopy"])
    check_sender(r["zerocopy"], r["server_transport"], "server")


def test_bidir(binary):
    with Server(binary) as srv:
        doc = client_json(binary, srv.port,
                          ["-x", "tcp", "-S", "32K", "-q", "8", "--bidir",
                           "--zerocopy"] + ITERS + QUICK)
    r = zc_result(doc, 32768)
    for who in ("client", "server"):
        check(r["zerocopy"][who]["sends"] > 0,
              "--bidir: no zero-copy send of the %s: %r" %
              (who, r["zerocopy"]))


def test_small_copied(binary):
    """Under 16 KiB the messages go copied: nothing is issued."""
    with Server(binary) as srv:
        doc = client_json(binary, srv.port,
                          ["-x", "tcp", "-S", "4K", "--zerocopy"] + ITERS +
                          QUICK)
    r = zc_result(doc, 4096)
    check_figures(r, 4096)
    check(r["zerocopy"]["client"]["issued"] == 0,
          "4 KiB messages sent zero copy: %r" % r["zerocopy"])


def test_loopback_mode(binary):
    r = run(binary, ["--loopback", "-x", "tcp", "-S", "64K", "--zerocopy",
                     "--json"] + ITERS + QUICK)
    check(r.rc == 0, lambda: "--loopback failed:\n" + r.describe())
    res = zc_result(r.json(), 65536)
    check(res["zerocopy"]["client"]["sends"] > 0,
          "--loopback: no zero-copy send notified: %r" % res["zerocopy"])


def usage_error(binary, args, words):
    r = run(binary, ["-c", "-a", "127.0.0.1", "-p", str(free_port())] + args)
    lines = r.err.splitlines()
    check(r.rc == 2 and r.out == "" and len(lines) == 2 and
          lines[1] == USAGE_LINE,
          lambda: "%r: want exit 2 and one error line\n%s" %
          (args, r.describe()))
    for w in words:
        check(w in lines[0], "%r: error line %r lacks %r" %
              (args, lines[0], w))


def test_refused(binary):
    usage_error(binary, ["-x", "rsocket", "--zerocopy"],
                ["--zerocopy", "rsocket"])
    usage_error(binary, ["-x", "tcp,rsocket", "-Z"], ["--zerocopy", "rsocket"])
    usage_error(binary, ["-x", "tcp", "--zerocopy", "--verify"],
                ["--zerocopy", "--verify"])


def refused_spec(port, spec, within=10.0):
    """Send @spec as a client that skipped its checks; the ERROR body.
    Retries while the server is still releasing the previous session."""
    t0 = time.monotonic()
    while True:
        sock = ctl_connect(port)
        try:
            sock.sendall(message(HELLO, hello_body()))
            m = recv_message(sock)
            if m[2] == HELLO:
                sock.sendall(message(TEST, spec))
                return recv_message(sock)
        finally:
            sock.close()
        check(m[2] == ERROR and time.monotonic() - t0 < within,
              "want HELLO, got %r" % (m,))
        time.sleep(0.1)


def test_server_refuses(binary):
    """A client that skipped its own checks gets an ERROR naming
    zerocopy; the server goes on serving."""
    with Server(binary) as srv:
        for over in ({"verify": True}, {"transport": "rsocket"}):
            m = refused_spec(srv.port, spec_body(zerocopy=True, **over))
            check_error_message(m, words=("zerocopy",))
        check(srv.alive(), "the server exited after refusing zerocopy")


TESTS = [
    ("write_64k", test_write_64k),
    ("text_line", test_text_line),
    ("read_server_sends", test_read_server_sends),
    ("bidir", test_bidir),
    ("small_copied", test_small_copied),
    ("loopback_mode", test_loopback_mode),
    ("refused", test_refused),
    ("server_refuses", test_server_refuses),
]

if __name__ == "__main__":
    why = no_zerocopy()
    if why:
        log("SKIP: %s" % why)
        sys.exit(77)
    main(TESTS)
