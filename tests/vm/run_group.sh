#!/usr/bin/env bash
# CTest entry for guest tests: boots the Soft-RoCE guest once (the siw
# group: Soft-iWARP, alone) and runs the groups inside, in order (a boot
# and the first connection cost 15-20 s: few boots keep CI short). Exit 77
# (skipped) when the guest cannot boot here, except under RP_REQUIRE_VM=1
# (CI), where that is a failure.
#   tests/vm/run_group.sh GROUP[,GROUP...] /path/to/rdmaperf [TIMEOUT [VERBS_SMOKE]]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
group=$1
bin=$(realpath "$2")
timeout=${3:-600}
smoke=()
[ $# -ge 4 ] && smoke=("$(realpath "$4")")
if [[ $group != siw && ,$group, == *,siw,* ]]; then
	echo "run_group: siw boots a guest of its own (Soft-iWARP): run it alone" >&2
	exit 2
fi
# The interpreter itself, not a wrapper: a version manager's python3 shim
# (pyenv's is a bash script that runs several programs) costs the guest 4 s
# of emulated process starts before python does.
py=$(python3 -c 'import sys; print(sys.executable)') || py=python3

# The siw group boots with Soft-iWARP instead of Soft-RoCE: its module is
# built first (once, cached: tests/vm/siw-build.sh).
dev=()
rc=0
if [ "$group" = siw ]; then
	ko=$("$here/siw-build.sh") || rc=$?
	dev=(--siw "$ko")
fi
if [ "$rc" -eq 0 ]; then
	"$here/rxe-run" --timeout "$timeout" "${dev[@]}" -- \
		"$py" -B "$here/guest_tests.py" "$group" "$bin" ${smoke[@]+"${smoke[@]}"}
	rc=$?
fi
if [ "$rc" -eq 77 ] && [ "${RP_REQUIRE_VM:-0}" = 1 ]; then
	echo "run_group: the Soft-RoCE guest is required here (RP_REQUIRE_VM=1)" >&2
	exit 1
fi
exit "$rc"
