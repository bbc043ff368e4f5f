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
# transports are built: i686, aarch64). Where ARCH's index offers another
# libssl3 than the host holds, libssl-dev:ARCH is unpacked under
# /opt/rdmaperf-cross (RP_CROSS_SSL_ROOT) instead and libcrypto linked
# statically (ssl_private). Quick when all is there: one dpkg-query.
# Builds only the rdmaperf target, with -DRP_WERROR=ON and without tests
# (-DRP_TESTS=OFF: no cmocka for the target needed).
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
	multiarch=${triplet/i686/i386}
	ssl_dir=${RP_CROSS_SSL_ROOT:-/opt/rdmaperf-cross}/libssl-$deb
}

skip() {
	echo "cross-build: SKIP: $*" >&2
	[ "${RP_REQUIRE_CROSS:-0}" = 1 ] && exit 1
	exit 77
}

installed() {
	dpkg-query -W -f='${Status}\n' "$@" 2>/dev/null | grep -c "ok installed"
}

# Packages of ARCH (arch_vars set); libssl-dev:ARCH only where it is not
# unpacked privately (ssl_private).
arch_pkgs() {
	pkgs=("gcc-$triplet" "libc6-dev-$deb-cross" qemu-user "libcjson-dev:$deb")
	[ -f "$ssl_dir/done" ] || pkgs+=("libssl-dev:$deb")
	[ "$rdma" = ON ] && pkgs+=("libibverbs-dev:$deb" "librdmacm-dev:$deb")
	return 0
}

# libssl3 is Multi-Arch: same: every architecture installed must hold one
# version. Where ARCH's index offers another than the host holds (a security
# update not in every index: this workplace's mirror has no s390x in
# bookworm-security), installing libssl-dev:ARCH would downgrade the host's
# libssl3. Then libssl-dev:ARCH is unpacked under $ssl_dir instead, its
# .pc files pointed there, and libcrypto linked statically from it (only
# the .a is kept): the binary needs no libssl3:ARCH to run.
ssl_private() {
	local host want deb_file tmp

	host=$(dpkg-query -W -f='${Version}' "libssl3:$(dpkg --print-architecture)" \
		2>/dev/null) || return 0
	want=$(apt-cache policy "libssl3:$deb" | awk '/Candidate:/ { print $2 }')
	[ -n "$want" ] && [ "$want" != "(none)" ] && [ "$want" != "$host" ] ||
		return 0
	echo "cross-build: libssl3 $host here, $want for $deb: unpacking" \
		"libssl-dev:$deb under $ssl_dir" >&2
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -qq "libssl-dev:$deb=$want" 2>/dev/null) ||
		skip "apt-get could not download libssl-dev:$deb=$want"
	deb_file=$(echo "$tmp"/libssl-dev_*.deb)
	rm -rf "$ssl_dir"
	mkdir -p "$ssl_dir"
	dpkg-deb -x "$deb_file" "$ssl_dir"
	rm -rf "$tmp"
	find "$ssl_dir" -name '*.so' -delete
	find "$ssl_dir" -name '*.pc' -exec sed -i \
		-e "s|^prefix=/usr\$|prefix=$ssl_dir/usr|" \
		-e 's|^Cflags: .*|& -I${includedir}/'"$multiarch|" {} +
	touch "$ssl_dir/done"
}

install_arch() {
	arch_pkgs
	[ "$(installed "${pkgs[@]}")" = "${#pkgs[@]}" ] && return 0
	[ "$(id -u)" -eq 0 ] ||
		skip "need root to install the $name cross tools: ${pkgs[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ! dpkg --print-foreign-architectures | grep -qx "$deb"; then
		dpkg --add-architecture "$deb"
		apt-get update -qq || true # a foreign index may lag: ssl_private
	fi
	[ "$(installed "libssl-dev:$deb")" = 1 ] || ssl_private
	arch_pkgs
	echo "cross-build: installing ${pkgs[*]}" >&2
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
		--no-install-recommends "${pkgs[@]}" >/dev/null ||
		skip "apt-get could not install ${pkgs[*]}"
}

build() {
	local dir=$1 ssl_pc=

	[ -f "$ssl_dir/done" ] && ssl_pc=$ssl_dir/usr/lib/$multiarch/pkgconfig
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/$name-linux-gnu.cmake" \
		-DRP_WERROR=ON -DRP_TESTS=OFF -DRP_RDMA="$rdma" \
		${ssl_pc:+-DRP_CROSS_PKG_CONFIG="$ssl_pc"} >/dev/null
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
