#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# In the root ROOT the package was installed into: what
# rdmaperf-server.service runs (rdmaperf -s with RDMAPERF_SERVER_ARGS of
# /etc/default/rdmaperf-server), as the user rdmaperf the package made,
# serves one test (--once) to a client run as root; the client's JSON goes
# to OUT. A mmdebstrap hook of package.sh.
#
#   serve_as_user.sh ROOT OUT
set -euo pipefail
root=$1 out=$2
port=$(python3 -c 'import socket; s = socket.socket();
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# shellcheck disable=SC2016 # $RDMAPERF_SERVER_ARGS: the root's shell's
chroot --userspec=rdmaperf:rdmaperf "$root" sh -c \
	'. /etc/default/rdmaperf-server &&
	exec rdmaperf -s -a 127.0.0.1 -p "$0" --once $RDMAPERF_SERVER_ARGS' \
	"$port" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
served=
for _ in $(seq 100); do # until it listens: 10 s
	if chroot "$root" rdmaperf -c -a 127.0.0.1 -p "$port" -x tcp -S 4K \
		-C 1000 --json --quiet >"$out" 2>"$out.err"; then
		served=1
		break
	fi
	# --json puts a failure in the document, not on stderr: retried
	# while its code says the server is not listening yet
	code=$(python3 -c 'import json, sys
try: print((json.load(open(sys.argv[1])).get("error") or {}).get("code"))
except ValueError: print("unreadable")' "$out")
	[ "$code" = connect ] || {
		echo "the client failed (error code $code):" >&2
		cat "$out.err" "$out" >&2
		exit 1
	}
	sleep 0.1
done
[ -n "$served" ] || {
	echo "the server did not listen within 10 s" >&2
	exit 1
}
wait "$server" # --once: it ends after the test, with its status
trap - EXIT
echo "rdmaperf -s as the user rdmaperf with /etc/default/rdmaperf-server:" \
	"served one test"
