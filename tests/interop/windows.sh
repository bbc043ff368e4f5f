#!/usr/bin/env bash
# The Windows build against the native one on loopback (CTest: interop.*,
# tests/interop/windows.cmake).
#   windows.sh build WINDIR            scripts/build-windows.sh WINDIR
#   windows.sh run WINDIR NATIVE       wine WINDIR/rdmaperf.exe against
#                                      NATIVE, both ways (interop.py, then
#                                      --auth-key: windows_auth.py)
# Exit 77 (skipped, the reason on stdout) when mingw-w64 or wine is absent
# and cannot be installed; under CI=true or RP_REQUIRE_CROSS=1 (what
# scripts/test.sh sets in CI) that is a failure (exit 1).
# The wine prefix lives in WINDIR/wine, made once (wineboot), quietly.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

skip() {
	echo "SKIP: $*"
	if [ "${CI:-}" = true ] || [ "${RP_REQUIRE_CROSS:-}" = 1 ]; then
		echo "CI: a skip is a failure"
		exit 1
	fi
	exit 77
}

have_tools() {
	command -v x86_64-w64-mingw32-gcc-posix >/dev/null &&
		command -v wine >/dev/null
}

build() {
	local dir=$1
	if ! have_tools && { [ "$(id -u)" -ne 0 ] ||
		! command -v apt-get >/dev/null; }; then
		skip "mingw-w64 or wine missing, and not root with apt-get" \
			"to install them (scripts/install-deps.sh)"
	fi
	bash "$ROOT/scripts/build-windows.sh" "$dir" >/dev/null ||
		{ echo "FAIL: scripts/build-windows.sh $dir"; exit 1; }
}

# A wine prefix of our own, made once; WINEDEBUG=-all keeps wine quiet.
wine_prefix() {
	export WINEPREFIX=$1/wine WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
	[ -f "$WINEPREFIX/system.reg" ] && return 0
	mkdir -p "$WINEPREFIX"
	wineboot -i >/dev/null 2>&1 || true
	wineserver -w 2>/dev/null || true
	[ -f "$WINEPREFIX/system.reg" ] || skip "wineboot cannot make $WINEPREFIX"
}

# One wineserver for the whole run, and its system programs (services.exe,
# explorer.exe ...) started once with their output to /dev/null. Without
# this, each launch starts them with the test's pipes as their output, and a
# run ends only when they do, when the idle server shuts down 2-3 s later: so
# each run took 2.4 s, and the next launch met a wineserver on its way out.
# CI once saw such a launch end in 0.01 s with exit 1 and no output at all,
# before wine could have loaded rdmaperf.exe. Now a launch takes 0.04 s.
wine_server() {
	wineserver -k 2>/dev/null || true
	wineserver -p || skip "wineserver -p cannot start in $WINEPREFIX"
	trap 'wineserver -k 2>/dev/null || true' EXIT
	wine "$1" --version </dev/null >/dev/null 2>&1 ||
		skip "wine $1 --version fails"
}

run() {
	local dir=$1 native=$2 harness=$HERE/interop.py req=()
	have_tools || skip "mingw-w64 or wine missing (scripts/install-deps.sh)"
	[ -x "$dir/rdmaperf.exe" ] || [ -f "$dir/rdmaperf.exe" ] ||
		skip "no $dir/rdmaperf.exe: the build step (interop.windows.build) did not run"
	[ -f "$harness" ] || skip "no $harness"
	wine_prefix "$dir"
	wine_server "$dir/rdmaperf.exe"
	if [ "${CI:-}" = true ] || [ "${RP_REQUIRE_CROSS:-}" = 1 ]; then
		req=(--require)
	fi
	python3 -B "$harness" --native "$native" \
		--foreign "wine $dir/rdmaperf.exe" --name windows "${req[@]}" ||
		return
	python3 -B "$HERE/windows_auth.py" "$native" "wine $dir/rdmaperf.exe"
}

if [ "${1:-}" = build ] && [ $# -eq 2 ]; then
	build "$2"
elif [ "${1:-}" = run ] && [ $# -eq 3 ]; then
	run "$2" "$3"
else
	echo "usage: $0 build WINDIR | run WINDIR NATIVE" >&2
	exit 2
fi
