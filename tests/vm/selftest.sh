#!/usr/bin/env bash
# Self-test of tests/vm/rxe-run: boots the Soft-RoCE VM and checks that rxe0
# is PORT_ACTIVE, that the environment and working directory reach the
# command, that its exit status comes back, that --timeout kills a hung
# run, and that a hung boot is retried once.
#
# Exit status: 0 all passed, 1 a check failed, 77 skipped (rxe-run found a
# requirement missing) -- unless RP_REQUIRE_VM=1, where a missing requirement
# is a failure too (for CI machines that are meant to have it).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rxe_run=$here/rxe-run
passed=0
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

pass() { echo "ok - $*"; passed=$((passed + 1)); }
fail() { echo "not ok - $*"; failed=$((failed + 1)); }

# Run rxe-run with the given arguments; its output goes to $out, its exit
# status to $rc.
vm() {
	rc=0
	"$rxe_run" "$@" >"$out" 2>&1 || rc=$?
	if ((rc == 77)); then
		cat "$out"
		if [[ ${RP_REQUIRE_VM:-0} == 1 ]]; then
			echo "not ok - rxe-run skipped, but RP_REQUIRE_VM=1 requires the VM"
			echo "0 passed, 1 failed"
			exit 1
		fi
		echo "skipped: the Soft-RoCE VM cannot run here"
		exit 77
	fi
}

show() { sed 's/^/    # /' "$out"; }

# 1. The device, the environment, the working directory.
# shellcheck disable=SC2016 # expanded in the guest
vm -- 'ibv_devinfo -d rxe0 && echo "env:$RP_VM:$RP_VM_ADDR:$PWD"'
if ((rc == 0)) && grep -q 'state:[[:space:]]*PORT_ACTIVE' "$out"; then
	pass "ibv_devinfo -d rxe0 shows PORT_ACTIVE"
else
	fail "ibv_devinfo -d rxe0 shows PORT_ACTIVE (exit $rc)"
	show
fi
if grep -qxF "env:1:10.77.0.1:$PWD" "$out"; then
	pass "RP_VM, RP_VM_ADDR and the working directory reach the command"
else
	fail "RP_VM, RP_VM_ADDR and the working directory reach the command"
	show
fi

# 2. The exit status of the command, with several arguments (run as they
# are, not joined into one shell line).
vm -- sh -c 'echo to-stdout; echo to-stderr >&2; exit 3'
if ((rc == 3)) && grep -qx to-stdout "$out" && grep -qx to-stderr "$out"; then
	pass "exit status 3 and output come back"
else
	fail "exit status 3 and output come back (got exit $rc)"
	show
fi

# 3. A command that hangs is killed by --timeout (whether it is still booting
# or already running when the time is up, the answer must be 124).
start=$SECONDS
vm --timeout 10 -- 'sleep 600'
took=$((SECONDS - start))
if ((rc == 124 && took < 30)) && grep -q 'timed out' "$out"; then
	pass "--timeout 10 kills a hung command: exit 124 after ${took}s"
else
	fail "--timeout 10 kills a hung command (exit $rc after ${took}s)"
	show
fi

# 4. A boot that does not bring its device up in time is killed and booted
# once more, saying so (a boot that hung, seen once in six boots); twice is
# a VM failure. RP_VM_BOOT_S=1 makes every boot "hang".
start=$SECONDS
RP_VM_BOOT_S=1 vm --timeout 60 -- true
took=$((SECONDS - start))
if ((rc == 125 && took < 30)) && grep -q 'booting it once more' "$out" &&
	grep -q 'hung in boot twice' "$out"; then
	pass "a hung boot is retried once, then a VM failure (${took}s)"
else
	fail "a hung boot is retried once, then a VM failure (exit $rc after ${took}s)"
	show
fi

echo "$passed passed, $failed failed"
((failed == 0))
