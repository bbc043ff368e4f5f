#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
--auth-key between the Windows build (BCrypt's HMAC-SHA256 and random
bytes) and the native one (libcrypto), both ways: the right key passes,
a wrong one is refused on both ends. interop.py covers everything else.

    windows_auth.py NATIVE 'wine PATH/rdmaperf.exe'

Exit 0 passed, 1 failed. Python 3 standard library and tests/e2e/e2elib.
"""
import os
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "e2e"))
import e2elib  # noqa: E402
from e2elib import check, log  # noqa: E402

ARGS = ["-x", "tcp", "-o", "W", "-S", "13", "-C", "16", "--verify",
        "--warmup", "4", "--lat-iterations", "4", "--quiet", "--json"]


def key_file(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text + "\n")
    os.chmod(path, 0o600)
    return path


def one_way(client, server, good, bad, label):
    with e2elib.Server(server, ["--auth-key", good]) as srv:
        r = e2elib.client(client, srv.port, ARGS + ["--auth-key", good])
        check(r.rc == 0 and r.json()["results"][0]["ok"],
              lambda: "%s, same key: %s" % (label, r.describe()))
        r = e2elib.client(client, srv.port, ARGS + ["--auth-key", bad])
        check(r.rc == 1 and r.json()["error"]["code"] == "auth",
              lambda: "%s, other key: %s" % (label, r.describe()))
    log("ok   --auth-key, %s" % label)


def main():
    native, foreign = [os.path.abspath(sys.argv[1])], shlex.split(sys.argv[2])
    with tempfile.TemporaryDirectory() as d:
        good = key_file(d, "good.key", "a shared secret for both ends")
        bad = key_file(d, "bad.key", "another secret")
        try:
            one_way(foreign, native, good, bad, "windows client -> native")
            one_way(native, foreign, good, bad, "native client -> windows")
        except e2elib.TestFailure as e:
            log("FAIL " + str(e).replace("\n", "\n  "))
            sys.exit(1)


if __name__ == "__main__":
    main()
