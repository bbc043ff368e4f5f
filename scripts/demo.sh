#!/usr/bin/env bash
# Install, build, and run a real benchmark on loopback (TCP), then, where
# the Soft-RoCE guest can boot, the same test over RDMA verbs.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
make -C build -j"$(nproc)" rdmaperf >/dev/null

echo "== TCP on loopback: write 4 KiB, depth 16 =="
build/rdmaperf --loopback -x tcp -o W -S 4096 -q 16 -C 100000

if [ "${RP_DEMO_RDMA:-1}" = 1 ]; then
	echo
	echo "== RDMA write 4 KiB, depth 16, on Soft-RoCE in a qemu guest =="
	tests/vm/rxe-run --timeout 240 -- \
		build/rdmaperf --loopback -x rdma -o W -S 4096 -q 16 -C 20000 ||
		echo "(the RDMA demo needs the qemu guest; see tests/vm/README.md)"
fi
