#!/usr/bin/env bash
# Every comparison that needs an RDMA device, in one boot of the Soft-RoCE
# guest (tests/vm/rxe-run, as the tests in tests/vm use it):
# bench/rdma_vs_perftest.sh, then bench/transports_vs_peers.sh. Each keeps
# its own environment variables (see their heads); with an RDMA adapter
# (RP_BENCH_ADDR, RP_BENCH_DEV) both run directly, without a guest.
#   bench/guest_vs_peers.sh [RDMAPERF]
# Exit status: 77 when the guest cannot boot here (rxe-run's "skipped"),
# else the first failing script's.
set -uo pipefail

RP=$(realpath "${1:-build/rdmaperf}")
HERE=$(cd "$(dirname "$0")" && pwd)
[ -x "$RP" ] || { echo "bench: $RP not built" >&2; exit 1; }

if [ -z "${RP_VM:-}" ] && [ -z "${RP_BENCH_ADDR:-}" ]; then
	# The variables the two scripts read, passed into the guest.
	vars=()
	for v in RP_BENCH_ONLY ROUNDS SWEEP_ITERS SWEEP_MAX SWEEP_DEPTH STREAMS MSG_ITERS MSG_SIZES \
		STREAM_SIZE LAT_ITERS PT_EXTRA WAIT RS_SIZES RS_LAT_ITERS \
		RS_BW_BYTES RS_WARMUP RS_TIMEOUT; do
		[ -z "${!v:-}" ] || vars+=("$v=${!v}")
	done
	rw=()
	if [ -n "${RP_BENCH_KEEP:-}" ]; then
		mkdir -p "$RP_BENCH_KEEP"
		RP_BENCH_KEEP=$(realpath "$RP_BENCH_KEEP")
		rw=(--rw "$RP_BENCH_KEEP")
		vars+=("RP_BENCH_KEEP=$RP_BENCH_KEEP")
	fi
	"$HERE/../tests/vm/rxe-run" --timeout "${RP_BENCH_TIMEOUT:-1800}" \
		--mem "${RP_BENCH_MEM:-1024}" "${rw[@]}" -- \
		env "${vars[@]}" bash "$HERE/guest_vs_peers.sh" "$RP"
	rc=$?
	[ "$rc" != 77 ] || echo "bench: skipped: the Soft-RoCE guest cannot boot here" >&2
	exit "$rc"
fi

rc=0
start=$(date +%s)
bash "$HERE/rdma_vs_perftest.sh" "$RP" || rc=$?
echo "# rdma_vs_perftest.sh: $(($(date +%s) - start)) s, exit $rc"
start=$(date +%s)
rc2=0
bash "$HERE/transports_vs_peers.sh" "$RP" || rc2=$?
echo "# transports_vs_peers.sh: $(($(date +%s) - start)) s, exit $rc2"
[ "$rc" != 0 ] || rc=$rc2
exit "$rc"
