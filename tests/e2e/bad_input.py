#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Bad command lines and an unreachable server. A usage error (an operation
the transport cannot do among them) exits 2 with one line naming the flag, then the "Try 'rdmaperf --help'." line, nothing on
stdout, and never hangs; a server nobody listens for is exit 1 with a clear
message (text) or a valid failure document (--json).

    python3 tests/e2e/bad_input.py /path/to/rdmaperf
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (HELLO, QUICK, TEST, USAGE_LINE, Server,  # noqa: E402
                    check, check_error_message, client_ok_eventually,
                    ctl_connect, free_port, hello_body, main, message,
                    recv_message, run, spec_body)

PARSE_TIMEOUT = 20  # a usage error is immediate; this only catches a hang


def base():
    # A client with everything it needs, aimed at a port nobody listens on:
    # if a bad flag were accepted the run fails fast instead of hanging.
    return ["-c", "-a", "127.0.0.1", "-p", str(free_port())]


# (name, arguments, words the error line must contain)
CASES = [
    ("size 0", base() + ["-S", "0"], ["-S/--size", "0"]),
    ("size 12Q", base() + ["-S", "12Q"], ["-S/--size", "12Q"]),
    ("size 2G", base() + ["-S", "2G"], ["-S/--size", "2G"]),
    ("size 1.5K", base() + ["-S", "1.5K"], ["-S/--size"]),
    ("size without value", base() + ["-S"], ["-S/--size", "value"]),
    ("depth 0", base() + ["-q", "0"], ["-q/--queue-depth"]),
    ("depth 4097", base() + ["-q", "4097"], ["-q/--queue-depth", "4096"]),
    ("-C and -t", base() + ["-C", "5", "-t", "1"],
     ["-C/--iterations", "-t/--time"]),
    ("-C 0", base() + ["-C", "0"], ["-C/--iterations"]),
    ("op X", base() + ["-o", "X"], ["-o/--op", "'X'"]),
    ("client without address", ["-c", "-p", str(free_port())],
     ["-a/--address"]),
    ("empty address", ["-c", "-a", ""], ["-a/--address"]),
    ("iperf3's -c HOST", ["-c", "10.0.0.2"],
     ["unexpected argument '10.0.0.2'", "did you mean -a 10.0.0.2?"]),
    ("a stray word after -a", base() + ["extra"],
     ["unexpected argument 'extra'"]),
    ("no mode", ["-a", "127.0.0.1"], ["-s", "-c", "--loopback"]),
    ("transport nosuch", base() + ["-x", "nosuch"],
     ["-x/--transport", "nosuch"]),
    ("transport list with empty name", base() + ["-x", "tcp,"],
     ["-x/--transport"]),
    ("port 0", ["-c", "-a", "127.0.0.1", "-p", "0"], ["-p/--port", "0"]),
    ("port 70000", ["-c", "-a", "127.0.0.1", "-p", "70000"],
     ["-p/--port", "70000"]),
    ("server port 0", ["-s", "-p", "0"], ["-p/--port"]),
    ("warmup -1", base() + ["--warmup", "-1"], ["--warmup", "-1"]),
    ("lat-iterations 0", base() + ["--lat-iterations", "0"],
     ["--lat-iterations"]),
    ("time abc", base() + ["-t", "abc"], ["-t/--time", "abc"]),
    ("time 0", base() + ["-t", "0"], ["-t/--time"]),
    ("memory cap: -S 1G -q 16", base() + ["-S", "1G", "-q", "16"],
     ["-S/--size", "-q/--queue-depth"]),
    ("nothing to measure", base() + ["--no-latency", "--no-bandwidth"],
     ["--no-latency", "--no-bandwidth"]),
    ("mtu 300", base() + ["--mtu", "300"], ["--mtu"]),
    # an rdma option with no rdma transport would change nothing
    ("device over tcp", base() + ["-x", "tcp", "-d", "mlx5_0"],
     ["-d/--device", "rdma", "-x"]),
    ("unknown long flag", base() + ["--bogus"], ["--bogus"]),
    ("unknown short flag", base() + ["-Y"], ["-Y"]),
    ("stray argument", base() + ["stray"], ["'stray'"]),
    # an operation the transport cannot do: refused before anything runs
    ("fetch_add over tcp", base() + ["-x", "tcp", "-o", "fetch_add"],
     ["-o/--op", "tcp", "fetch_add", "write, read, send"]),
    ("cmp_swap over tcp", base() + ["-x", "tcp", "-o", "cmp_swap"],
     ["-o/--op", "tcp", "cmp_swap", "write, read, send"]),
    ("write_imm over tcp", base() + ["-x", "tcp", "-o", "write_imm"],
     ["-o/--op", "tcp", "write_imm", "write, read, send"]),
    ("fetch_add over tcp, --loopback",
     ["--loopback", "-x", "tcp", "-o", "fadd"], ["tcp", "fetch_add"]),
]


def check_usage_error(binary, name, args, words):
    r = run(binary, args, timeout=PARSE_TIMEOUT)
    check(r.rc == 2, lambda: "%s: want exit 2\n%s" % (name, r.describe()))
    check(r.out == "", lambda: "%s: stdout not empty\n%s" % (name, r.describe()))
    lines = r.err.splitlines()
    check(len(lines) == 2 and lines[1] == USAGE_LINE,
          lambda: "%s: want one error line then %r\n%s" %
          (name, USAGE_LINE, r.describe()))
    check(lines[0].startswith("rdmaperf: "),
          "%s: error line %r does not start with 'rdmaperf: '" %
          (name, lines[0]))
    for w in words:
        check(w in lines[0], "%s: error line %r does not name %r" %
              (name, lines[0], w))


def test_usage_errors(binary):
    errors = []
    for name, args, words in CASES:
        try:
            check_usage_error(binary, name, args, words)
        except AssertionError as e:
            errors.append(str(e))
    check(not errors, lambda: "\n".join(errors))


def test_help_and_version(binary):
    r = run(binary, ["--help"], timeout=PARSE_TIMEOUT)
    check(r.rc == 0 and r.err == "" and "Usage: rdmaperf" in r.out,
          lambda: "--help:\n" + r.describe())
    for flag in ("--size", "--queue-depth", "--iterations", "--time",
                 "--json", "--verify", "--once", "--loopback"):
        check(flag in r.out, "--help does not list %s" % flag)
    r = run(binary, ["--version"], timeout=PARSE_TIMEOUT)
    check(r.rc == 0 and r.err == "" and r.out.startswith("rdmaperf "),
          lambda: "--version:\n" + r.describe())


def test_server_refuses_op(binary):
    """A client that asks for an operation the transport cannot do (one
    that skipped its own check) gets ERROR "op" naming what the transport
    does; the server goes on serving."""
    with Server(binary) as srv:
        sock = ctl_connect(srv.port)
        try:
            sock.sendall(message(HELLO, hello_body()))
            m = recv_message(sock)
            check(m[2] == HELLO, "want HELLO, got %r" % (m,))
            sock.sendall(message(TEST, spec_body(op="fetch_add", size=8)))
            check_error_message(recv_message(sock), code="op",
                                words=("tcp", "fetch_add",
                                       "write, read, send"))
        finally:
            sock.close()
        client_ok_eventually(binary, srv.port,
                             ["-x", "tcp", "-C", "100"] + QUICK)
        check(srv.alive(), "the server exited after refusing an operation")


def test_no_server_text(binary):
    port = free_port()
    r = run(binary, ["-c", "-a", "127.0.0.1", "-p", port, "-x", "tcp",
                     "-C", "100"] + QUICK, timeout=30)
    check(r.rc == 1, lambda: "want exit 1\n" + r.describe())
    check(r.seconds < 10, "took %.1f s to give up on a refused port" %
          r.seconds)
    err = r.err.strip().splitlines()
    check(len(err) >= 1 and err[0].startswith("rdmaperf: "),
          lambda: "no 'rdmaperf: ...' line on stderr\n" + r.describe())
    msg = err[0]
    for w in ("cannot reach", "127.0.0.1", str(port), "refused"):
        check(w in msg, "stderr %r does not say %r" % (msg, w))
    check("FAILED" in r.out, lambda: "the text report does not say FAILED\n" +
          r.describe())


def test_no_server_json(binary):
    port = free_port()
    r = run(binary, ["-c", "-a", "127.0.0.1", "-p", port, "-x", "tcp",
                     "-C", "100", "--json"] + QUICK, timeout=30)
    check(r.rc == 1, lambda: "want exit 1\n" + r.describe())
    check(r.seconds < 10, "took %.1f s to give up on a refused port" %
          r.seconds)
    doc = r.json()
    check(doc.get("schema") == "rdmaperf/1", "schema %r" % doc.get("schema"))
    e = doc.get("error")
    check(isinstance(e, dict) and e.get("code") == "connect" and
          isinstance(e.get("message"), str) and str(port) in e["message"],
          "top-level error %r, want code 'connect' naming the port" % e)
    res = doc.get("results")
    check(isinstance(res, list) and len(res) == 1,
          "want one (failed) result, got %r" % res)
    f = res[0]
    check(f.get("ok") is False and isinstance(f.get("error"), dict) and
          f["error"].get("code") == "connect",
          "the result is not a failed 'connect' entry: %r" % f)
    check(f.get("transport") == "tcp", "failed result transport %r" %
          f.get("transport"))
    for k in ("throughput", "latency", "latency_unloaded"):
        check(k in f and f[k] is None, "failed result: %s is %r" %
              (k, f.get(k)))
    check(doc["hosts"].get("server") is None,
          "hosts.server %r without a server" % doc["hosts"].get("server"))


TESTS = [
    ("usage_errors", test_usage_errors),
    ("help_and_version", test_help_and_version),
    ("server_refuses_op", test_server_refuses_op),
    ("no_server_text", test_no_server_text),
    ("no_server_json", test_no_server_json),
]

if __name__ == "__main__":
    main(TESTS)
