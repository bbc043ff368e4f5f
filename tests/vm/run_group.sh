#!/usr/bin/env bash
# CTest entry for one group of guest tests: boots the Soft-RoCE guest once
# and runs the group inside. Exit 77 (skipped) when the guest cannot boot
# here, except under RP_REQUIRE_VM=1 (CI), where that is a failure.
#   tests/vm/run_group.sh GROUP /path/to/rdmaperf [TIMEOUT]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
group=$1
bin=$(realpath "$2")
timeout=${3:-600}

"$here/rxe-run" --timeout "$timeout" -- \
	python3 -B "$here/guest_tests.py" "$group" "$bin"
rc=$?
if [ "$rc" -eq 77 ] && [ "${RP_REQUIRE_VM:-0}" = 1 ]; then
	echo "run_group: the Soft-RoCE guest is required here (RP_REQUIRE_VM=1)" >&2
	exit 1
fi
exit "$rc"
