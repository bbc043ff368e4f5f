#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cross-build the rdmaperf binary for another Linux architecture on Debian 12.
#
#   scripts/cross-build.sh ARCH [BUILDDIR]   install what is missing, build
#                                            BUILDDIR/rdmaperf (default
#                                            build-cross-ARCH), run it once
#   scripts/cross-build.sh --deps ARCH|all   only install what is missing
#   scripts/cross-build.sh --runner ARCH     print the command prefix that
#                                            runs the binary (qemu-user)
#
# The binary runs under qemu-user with the multiarch C library
# (libc6:ARCH, in /lib/TRIPLET), as the other libraries are: no -L. With
# "-L /usr/TRIPLET" qemu would start the cross toolchain's loader
# (libc6-ARCH-cross, 2.36-8cross1), which then finds libc.so.6 of
# libc6:ARCH (2.36-9+deb12u14) through the host's ld.so.cache: two
# glibc builds mixed in one process abort at start ("stack smashing
# detected").
#
# ARCH: i686 (alias i386), s390x (big-endian), aarch64 (alias arm64).
# Installs with apt (root): the architecture (dpkg --add-architecture), the
# cross compiler, qemu-user and the multiarch libraries libcjson-dev:ARCH
# libssl-dev:ARCH (and libibverbs-dev, librdmacm-dev where the rdma
# transports are built: i686, aarch64). Quick when all is there: one
# dpkg-query. Builds only the rdmaperf target, with -DRP_WERROR=ON and
# without tests (-DRP_TESTS=OFF: no cmocka for the target needed).
#
# Exit 0 built; 77 skipped, with the reason (not root and packages missing,
# or apt cannot install them), unless RP_REQUIRE_CROSS=1 (CI), where that
# is 1; 2 bad usage; 1 anything else failed.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
	sed -n '4,10p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# ARCH -> Debian architecture, compiler triplet, qemu, rdma transports.
arch_vars() {
	case $1 in
	i686 | i386) deb=i386 triplet=i686-linux-gnu qemu=qemu-i386 rdma=ON ;;
	s390x) deb=s390x triplet=s390x-linux-gnu qemu=qemu-s390x rdma=OFF ;;
	aarch64 | arm64)
		deb=arm64 triplet=aarch64-linux-gnu qemu=qemu-aarch64 rdma=ON
		;;
	*) echo "cross-build: unknown ARCH '$1' (i686, s390x, aarch64)" >&2
	   exit 2 ;;
	esac
	name=${triplet%%-*}
}

skip() {
	echo "cross-build: SKIP: $*" >&2
	[ "${RP_REQUIRE_CROSS:-0}" = 1 ] && exit 1
	exit 77
}

installed() {
	dpkg-query -W -f='${Status}\n' "$@" 2>/dev/null | grep -c "ok installed"
}

# Packages of ARCH (arch_vars set).
arch_pkgs() {
	pkgs=("gcc-$triplet" "libc6-dev-$deb-cross" qemu-user
	      "libcjson-dev:$deb" "libssl-dev:$deb")
	[ "$rdma" = ON ] && pkgs+=("libibverbs-dev:$deb" "librdmacm-dev:$deb")
	return 0
}

# libssl3 is Multi-Arch: same, so every architecture must hold one version.
# Where the host's differs from what the foreign index offers (a security
# update not yet in every index), install the foreign candidate on both.
ssl_pins() {
	local v
	v=$(apt-cache policy "libssl3:$deb" | awk '/Candidate:/ { print $2 }')
	[ -n "$v" ] && [ "$v" != "(none)" ] || return 0
	pins+=("libssl3=$v" "libssl3:$deb=$v" "libssl-dev:$deb=$v")
	[ "$(installed libssl-dev)" = 1 ] && pins+=("libssl-dev=$v")
	return 0
}

install_arch() {
	local pins=()

	arch_pkgs
	[ "$(installed "${pkgs[@]}")" = "${#pkgs[@]}" ] && return 0
	[ "$(id -u)" -eq 0 ] ||
		skip "need root to install the $name cross tools: ${pkgs[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ! dpkg --print-foreign-architectures | grep -qx "$deb"; then
		dpkg --add-architecture "$deb"
		apt-get update -qq || true # a foreign index may lag: pinned below
	fi
	ssl_pins
	echo "cross-build: installing ${pkgs[*]}" >&2
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
		--no-install-recommends "${pkgs[@]}" "${pins[@]}" >/dev/null ||
		skip "apt-get could not install ${pkgs[*]}"
}

build() {
	local dir=$1

	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/$name-linux-gnu.cmake" \
		-DRP_WERROR=ON -DRP_TESTS=OFF -DRP_RDMA="$rdma" >/dev/null
	cmake --build "$dir" --target rdmaperf -j"$(nproc)" >/dev/null
	# It must run: a binary that qemu cannot start fails here, not later.
	$qemu "$dir/rdmaperf" --version >/dev/null
	echo "cross-build: $dir/rdmaperf ($name, rdma $rdma)"
}

case ${1:-} in
--deps)
	[ $# -eq 2 ] || usage
	[ "$2" = all ] && set -- --deps i686 s390x aarch64
	shift
	for a in "$@"; do
		arch_vars "$a"
		install_arch
	done
	;;
--runner)
	[ $# -eq 2 ] || usage
	arch_vars "$2"
	echo "$qemu"
	;;
"" | -*) usage ;;
*)
	[ $# -le 2 ] || usage
	arch_vars "$1"
	install_arch
	build "${2:-build-cross-$name}"
	;;
esac
