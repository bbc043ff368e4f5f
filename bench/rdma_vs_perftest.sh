#!/usr/bin/env bash
# rdmaperf -x rdma side by side with perftest on the same device, in one
# guest boot, reported as ratios (throughput: rdmaperf / perftest, target
# >= 1; latency: rdmaperf / perftest, target <= 1).
#
# Without an RDMA adapter it boots the Soft-RoCE guest (tests/vm/rxe-run)
# and runs itself inside; with one (or inside the guest), it runs directly:
#   bench/rdma_vs_perftest.sh [RDMAPERF] [SIZE] [ITERS] [DEPTH]
#   RP_BENCH_ADDR=10.0.0.2 RP_BENCH_DEV=mlx5_0 bench/rdma_vs_perftest.sh
# Emulated RDMA is slow: only the ratios mean something there.
set -euo pipefail

RP=$(realpath "${1:-build/rdmaperf}")
SIZE=${2:-65536}
ITERS=${3:-2000}
DEPTH=${4:-16}
LAT_ITERS=${LAT_ITERS:-2000}
HERE=$(cd "$(dirname "$0")" && pwd)

if [ -z "${RP_VM:-}" ] && [ -z "${RP_BENCH_ADDR:-}" ]; then
	exec "$HERE/../tests/vm/rxe-run" --timeout "${RP_BENCH_TIMEOUT:-900}" -- \
		env LAT_ITERS="$LAT_ITERS" \
		bash "$HERE/rdma_vs_perftest.sh" "$RP" "$SIZE" "$ITERS" "$DEPTH"
fi
ADDR=${RP_BENCH_ADDR:-$RP_VM_ADDR}
DEV=${RP_BENCH_DEV:-rxe0}
GID=${RP_BENCH_GID:-1} # RoCE v2 IPv4-mapped GID on rxe; perftest has no rdma_cm here
ulimit -l unlimited 2>/dev/null || true

jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
ratio() { python3 -c "print('%.3f' % ($1 / $2))"; }

# perftest server in the background, client retried until it listens.
perftest() {
	local tool=$1
	shift
	"$tool" -d "$DEV" -x "$GID" "$@" >/dev/null 2>&1 &
	local srv=$! out="" i
	for i in $(seq 1 50); do
		sleep 0.2
		out=$("$tool" -d "$DEV" -x "$GID" "$@" "$ADDR" 2>/dev/null) && break
		out=""
	done
	wait "$srv" 2>/dev/null || true
	[ -n "$out" ] || { echo "bench: $tool did not run" >&2; return 1; }
	printf '%s\n' "$out"
}

# The first data row after perftest's column header.
perftest_row() { awk '/^ *#bytes/ {h=1; next} h && NF > 3 {print; exit}'; }

pt_bw() { # tool -> Gb/s average
	perftest "$1" -s "$SIZE" -n "$ITERS" -t "$DEPTH" -F --report_gbits |
		perftest_row | awk '{print $4}'
}
pt_lat() { # tool -> typical (median) latency, us
	perftest "$1" -s 2 -n "$LAT_ITERS" -F | perftest_row | awk '{print $5}'
}

"$RP" -s --quiet &
RPS=$!
trap 'kill $RPS 2>/dev/null || true' EXIT
rp() {
	local i
	for i in $(seq 1 50); do
		"$RP" -c -a "$ADDR" -x rdma -d "$DEV" --json "$@" 2>/dev/null && return
		sleep 0.2
	done
	return 1
}
rp_bw() {
	rp -o "$1" -S "$SIZE" -q "$DEPTH" -C "$ITERS" --warmup 100 --no-latency |
		jget 'd["results"][0]["throughput"]["bits_per_second"]/1e9'
}
rp_lat() {
	rp -o "$1" -S 2 --no-bandwidth --lat-iterations "$LAT_ITERS" --warmup 100 |
		jget 'd["results"][0]["latency_unloaded"]["p50"]'
}

printf '%-34s %12s %12s %8s\n' test rdmaperf perftest ratio
row() { printf '%-34s %12.3f %12.3f %8s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"; }
for op in write read send; do
	a=$(rp_bw "$op")
	b=$(pt_bw "ib_${op}_bw")
	row "$op Gb/s ${SIZE}B q$DEPTH x$ITERS" "$a" "$b"
done
for op in write send; do
	a=$(rp_lat "$op")
	b=$(pt_lat "ib_${op}_lat")
	row "$op lat p50 us 2B x$LAT_ITERS" "$a" "$b"
done
