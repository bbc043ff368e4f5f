#!/usr/bin/env bash
# Build rdmaperf.exe for Windows x86-64 (TCP only) with Debian's mingw-w64:
#   scripts/build-windows.sh [BUILDDIR]      (default: build-windows)
# Installs what it needs from Debian (mingw-w64 for x86-64, wine to run it,
# dpkg-dev to unpack sources), fetches Debian's cJSON source through apt
# (a private deb-src list under BUILDDIR: the system's apt setup is left
# alone), builds it for mingw into BUILDDIR/prefix, then rdmaperf.exe with
# -DRP_WERROR=ON -DRP_RDMA=OFF, statically linked: it runs under wine (or
# on Windows) with no DLL beside it. Idempotent: a second run only
# rebuilds what changed. Prints the path of rdmaperf.exe last.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(mkdir -p "${1:-$ROOT/build-windows}" && cd "${1:-$ROOT/build-windows}" && pwd)
PREFIX=$BUILD/prefix
HOST=x86_64-w64-mingw32
CC_WIN=$HOST-gcc-posix
say() { echo "build-windows: $*" >&2; }

install_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		say "need root to install: ${missing[*]}"
		return 1
	fi
	say "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}

# apt with a deb-src list of its own, for the suites this system uses
apt_src() {
	local dir=$BUILD/apt
	apt-get -o Dir::Etc::SourceList="$dir/none.list" \
		-o Dir::Etc::SourceParts="$dir/parts" \
		-o Dir::State::Lists="$dir/lists" \
		-o Dir::Cache="$dir/cache" -o Debug::NoLocking=1 "$@"
}

fetch_cjson() {
	local dir=$BUILD/apt codename
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	mkdir -p "$dir/parts" "$dir/lists/partial" "$dir/cache/archives/partial" \
		"$BUILD/cjson-src"
	: >"$dir/none.list"
	cat >"$dir/parts/debian-src.sources" <<-SRC
	Types: deb-src
	URIs: http://deb.debian.org/debian
	Suites: $codename $codename-updates
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

	Types: deb-src
	URIs: http://deb.debian.org/debian-security
	Suites: $codename-security
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	SRC
	say "fetching Debian's cJSON source"
	apt_src update -qq
	(cd "$BUILD/cjson-src" && apt_src source -qq cjson 2>&1 |
		grep -v '^W: Download is performed unsandboxed' >&2 || true)
}

# cJSON.c into a static library, its header and a pkg-config file
build_cjson() {
	local src obj version
	src=$(find "$BUILD/cjson-src" -maxdepth 2 -name cJSON.c | head -n 1)
	[ -n "$src" ] || { say "no cJSON source under $BUILD/cjson-src"; return 1; }
	version=$(sed -n 's/^#define CJSON_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
		"$(dirname "$src")/cJSON.h" | paste -sd.)
	say "building cJSON ${version:-?} for $HOST"
	mkdir -p "$PREFIX/include/cjson" "$PREFIX/lib/pkgconfig"
	obj=$BUILD/cjson-src/cJSON.o
	"$CC_WIN" -O2 -std=c89 -c "$src" -o "$obj"
	rm -f "$PREFIX/lib/libcjson.a"
	$HOST-ar rcs "$PREFIX/lib/libcjson.a" "$obj"
	cp "$(dirname "$src")/cJSON.h" "$PREFIX/include/cjson/"
	cat >"$PREFIX/lib/pkgconfig/libcjson.pc" <<-PC
	prefix=$PREFIX
	Name: libcjson
	Description: cJSON from Debian's source, built for $HOST
	Version: ${version:-0}
	Libs: -L\${prefix}/lib -lcjson
	Cflags: -I\${prefix}/include
	PC
}

install_pkgs gcc-mingw-w64-x86-64-posix wine wine64 dpkg-dev cmake pkg-config \
	make
if [ ! -f "$PREFIX/lib/pkgconfig/libcjson.pc" ]; then
	ls "$BUILD"/cjson-src/*/cJSON.c >/dev/null 2>&1 || fetch_cjson
	build_cjson
fi
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
	RP_WIN_PREFIX=$PREFIX cmake -S "$ROOT" -B "$BUILD" \
		-DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/$HOST.cmake" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DRP_WERROR=ON -DRP_RDMA=OFF \
		-DRP_TESTS=OFF >/dev/null
fi
RP_WIN_PREFIX=$PREFIX cmake --build "$BUILD" --target rdmaperf \
	-j"${RP_JOBS:-$(nproc)}" >&2
echo "$BUILD/rdmaperf.exe"
