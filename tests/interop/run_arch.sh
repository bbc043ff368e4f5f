#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CTest's interop.ARCH: the native rdmaperf against the cross build of ARCH
# (made by the fixture cross.build.ARCH: scripts/cross-build.sh) through
# tests/interop/interop.py, under qemu-user, or natively where the kernel
# runs the program (i686 on an x86-64 kernel with IA32 emulation).
#
#   run_arch.sh ARCH NATIVE_RDMAPERF CROSS_BUILD_DIR
#
# Exit 77 (skipped, with the reason) when the cross build or qemu-user is
# missing, unless RP_REQUIRE_CROSS=1 (CI, scripts/test.sh): then 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=$1 native=$2 bin=$3/rdmaperf

skip() {
	echo "interop: SKIP: $*"
	[ "${RP_REQUIRE_CROSS:-0}" = 1 ] && exit 1
	exit 77
}

# What hosts.*.build must say of the foreign side (platform/build.c).
case $arch in
i686) expect="arch=i386 pointer_bits=32 byte_order=little" ;;
s390x) expect="arch=s390x pointer_bits=64 byte_order=big" ;;
aarch64) expect="arch=aarch64 pointer_bits=64 byte_order=little" ;;
*) echo "run_arch: unknown ARCH $arch" >&2; exit 2 ;;
esac

[ -x "$bin" ] || skip "no $arch build at $bin (cross.build.$arch did" \
	"not build it: is the cross compiler installed? scripts/cross-build.sh)"
runner=
if ! "$bin" --version >/dev/null 2>&1; then
	runner=$(bash scripts/cross-build.sh --runner "$arch")
	command -v "${runner%% *}" >/dev/null ||
		skip "$runner is missing (qemu-user)"
fi
echo "interop: $arch runs as: ${runner:+$runner }$bin"
args=(--native "$native" --foreign "${runner:+$runner }$bin" --name "$arch")
for e in $expect; do
	args+=(--expect "$e")
done
[ "${RP_REQUIRE_CROSS:-0}" = 1 ] && args+=(--require)
exec python3 -B tests/interop/interop.py "${args[@]}"
