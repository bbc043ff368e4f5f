#!/usr/bin/env bash
# Install what rdmaperf needs to build, test and benchmark on Debian 12.
# Idempotent: does nothing when every package is already installed.
set -euo pipefail

PKGS=(
	# build
	build-essential cmake pkg-config clang-format
	libcjson-dev libcmocka-dev libibverbs-dev librdmacm-dev
	libssl-dev liburing-dev
	# rdmaperf monitor's /metrics (HTTP by libmicrohttpd); its e2e test runs
	# Debian's prometheus (and its promtool) against it
	libmicrohttpd-dev prometheus
	# the ofi transport (-x ofi:PROVIDER) and its peer tools: fi_info,
	# fi_pingpong (bench/ofi_vs_fi_pingpong.sh)
	libfabric-dev libfabric-bin
	# fuzz the decoders (tests/fuzz): clang and its libFuzzer and
	# sanitizer runtimes (only recommended by clang, so named here)
	clang libclang-rt-dev
	# run and test the verbs path on Soft-RoCE inside a qemu guest
	rdma-core ibverbs-providers ibverbs-utils librdmacm1 rdmacm-utils
	qemu-system-x86 linux-image-amd64 busybox-static kmod cpio xz-utils
	iproute2 python3
	# Soft-iWARP for the guest (vm.siw): Debian's kernel does not build
	# siw; tests/vm/siw-build.sh builds it from the source against the
	# headers of the kernel linux-image-amd64 installs
	linux-source-6.1 linux-headers-amd64
	# NFS over RDMA and TCP in the guest (vm.nfs, bench/nfs_rdma_vs_tcp.sh):
	# the guest runs the host's nfsd tools against its own kernel's nfsd,
	# rpcrdma and sunrpc (tests/vm/nfs_setup.sh)
	nfs-kernel-server nfs-common rpcbind
	# validate JSON against schema/, render the SVG plots in the tests
	python3-jsonschema librsvg2-bin
	# --matrix: MPI launches the ranks (Open MPI; any MPI-3 works)
	openmpi-bin libopenmpi-dev
	# --tos checked on the wire (tests/e2e/tos.py, the fabric's tos case)
	tcpdump
	# peer tools the benchmarks compare against
	perftest iperf3 sockperf fio
	# the Windows build (scripts/build-windows.sh: mingw-w64 for x86-64
	# only, with winpthreads) and its interop test under wine; dpkg-dev
	# unpacks Debian's cJSON source for it
	gcc-mingw-w64-x86-64-posix wine wine64 dpkg-dev
	# the Debian package and its test (tests/pkg, doc/packaging.md):
	# debhelper builds it, lintian judges it, mmdebstrap makes the clean
	# root it is installed into, systemd-analyze (and man, for the units'
	# Documentation=) verifies the units; bash-completion and zsh run the
	# completion; libmicrohttpd-dev is the package's Build-Depends (the
	# monitor's /metrics)
	debhelper lintian mmdebstrap systemd man-db bash-completion zsh
	libmicrohttpd-dev
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: need root to install: ${missing[*]}" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# A mirror caught mid-sync fails the update of one index (seen here: the
# i386 security index, "File has unexpected size"); the lists already there
# may still hold every package: the install below says if they do not.
apt-get update -qq ||
	echo "install-deps: apt-get update failed; installing from the package lists there are" >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
