#!/usr/bin/env bash
# Run the built verbs_smoke (tests/vm/verbs_smoke.c, linked with the
# project's library by CMake) inside the Soft-RoCE guest (tests/vm/rxe-run).
#   tests/vm/verbs_smoke.sh /path/to/verbs_smoke [verbs_smoke options:
#                           -n -R -S SIZE -q DEPTH OP...]
# A sanitizer build comes from CMake (-DRP_SANITIZE=ON).
# Environment: RP_SMOKE_TIMEOUT (seconds, boot included; default 400),
# RP_REQUIRE_VM=1 (a missing guest fails).
# Exit status: verbs_smoke's; 77 when the guest is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

skip() {
	echo "verbs_smoke: $*" >&2
	[ "${RP_REQUIRE_VM:-0}" = 1 ] && exit 1
	exit 77
}

[ $# -ge 1 ] || {
	echo "usage: $0 /path/to/verbs_smoke [OPTIONS]" >&2
	exit 2
}
if ! bin=$(realpath "$1" 2>/dev/null) || [ ! -x "$bin" ]; then
	echo "verbs_smoke: no binary at $1: build the verbs_smoke target" >&2
	exit 1
fi
shift

"$here/rxe-run" --timeout "${RP_SMOKE_TIMEOUT:-400}" -- "$bin" "$@"
rc=$?
[ "$rc" -eq 77 ] && skip "the Soft-RoCE guest is not available here"
exit "$rc"
