#!/usr/bin/env bash
# Build Soft-iWARP's module (siw.ko) for the guest's kernel, once, and print
# its path. Debian's 6.1 kernel does not build siw (CONFIG_RDMA_SIW is off);
# its source is in linux-source-6.1 and builds out of tree against the
# kernel's headers in about 30 s (most of it unpacking the tarball). The
# module is cached, keyed by the kernel version and the source tarball, in
# RP_SIW_CACHE (default /var/cache/rdmaperf, which outlives checkouts: CI
# builds it on its first run only). Exit 77 when the kernel, its headers or
# the source are missing.
#   tests/vm/siw-build.sh            prints /var/cache/rdmaperf/siw-KVER-KEY/siw.ko
set -euo pipefail
skip() {
	echo "siw-build: skipped: $*" >&2
	exit 77
}
kver=${RP_VM_KVER:-}
if [ -z "$kver" ]; then # the kernel rxe-run boots: the newest Debian one
	k=$(compgen -G '/boot/vmlinuz-*-amd64' | sort -V | tail -n 1 || true)
	[ -n "$k" ] || skip "no /boot/vmlinuz-*-amd64 (apt-get install linux-image-amd64)"
	kver=${k#/boot/vmlinuz-}
fi
src=$(compgen -G '/usr/src/linux-source-6.1.tar.*' | head -n 1 || true)
[ -n "$src" ] || skip "no /usr/src/linux-source-6.1.tar.* (apt-get install linux-source-6.1)"
hdr=/usr/src/linux-headers-$kver
[ -r "$hdr/Makefile" ] || skip "no $hdr (apt-get install linux-headers-$kver)"
key=$(stat -c '%n %s %Y' "$src" "$hdr/Module.symvers" | md5sum | cut -c1-12)
dir=${RP_SIW_CACHE:-/var/cache/rdmaperf}/siw-$kver-$key
if [ -s "$dir/siw.ko" ]; then
	echo "$dir/siw.ko"
	exit 0
fi
mkdir -p "$(dirname "$dir")"
work=$(mktemp -d "$(dirname "$dir")/siw-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
t0=$SECONDS
top=$(basename "$src")
top=${top%.tar.*} # linux-source-6.1
tar -xf "$src" -C "$work" "$top/drivers/infiniband/sw/siw" ||
	{ echo "siw-build: cannot unpack siw from $src" >&2; exit 1; }
make -s -C "$hdr" M="$work/$top/drivers/infiniband/sw/siw" \
	CONFIG_RDMA_SIW=m modules >"$work/build.log" 2>&1 ||
	{ cat "$work/build.log" >&2; echo "siw-build: the build failed" >&2; exit 1; }
mkdir -p "$work/out"
cp "$work/$top/drivers/infiniband/sw/siw/siw.ko" "$work/out/siw.ko"
rm -rf "$dir"
mv "$work/out" "$dir" # whole or not at all: a parallel build may race
echo "siw-build: built $dir/siw.ko for $kver in $((SECONDS - t0)) s" >&2
echo "$dir/siw.ko"
