#!/usr/bin/env bash
# The socket transports side by side with their peer tools on the RDMA
# device's address, in one guest boot (or on real hardware with
# RP_BENCH_ADDR), reported as ratios:
#   rsocket: rdmaperf -x rsocket against rstream (rdmacm-utils). rstream is
#            a ping-pong (each transfer goes there and back; usec/xfer is
#            half the round trip, Gb/sec counts both directions), so the
#            like-for-like ratio is latency: rdmaperf's unloaded mean (half
#            round trip) over rstream's usec/xfer, same size. rdmaperf's
#            streaming throughput at depth 16 is shown beside it.
#   tcp:     rdmaperf -x tcp -o write against iperf3, one stream, same
#            message size and duration; ratio of Gb/s.
#   bench/transports_vs_peers.sh [RDMAPERF] [SECONDS]
set -euo pipefail

RP=$(realpath "${1:-build/rdmaperf}")
SECS=${2:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${RP_VM:-}" ] && [ -z "${RP_BENCH_ADDR:-}" ]; then
	exec "$HERE/../tests/vm/rxe-run" --timeout "${RP_BENCH_TIMEOUT:-900}" -- \
		bash "$HERE/transports_vs_peers.sh" "$RP" "$SECS"
fi
ADDR=${RP_BENCH_ADDR:-$RP_VM_ADDR}
ulimit -l unlimited 2>/dev/null || true
PORT=$((21000 + RANDOM % 4000))

jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
row() {
	printf '%-40s %12.3f %12.3f %8s\n' "$1" "$2" "$3" \
		"$(python3 -c "print('%.3f' % ($2 / $3))")"
}

"$RP" -s -a "$ADDR" -p "$PORT" --quiet &
pids=($!)
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
sleep 1
rp() { "$RP" -c -a "$ADDR" -p "$PORT" --json "$@"; }

# rstream ping-pong of SIZE x COUNT: half round trip in us.
rstream_us() {
	rstream -b "$ADDR" -S "$1" -C "$2" >/dev/null 2>&1 &
	local srv=$! out="" i
	for i in $(seq 1 50); do
		sleep 0.2
		out=$(rstream -s "$ADDR" -S "$1" -C "$2" 2>/dev/null) && break
	done
	wait "$srv" 2>/dev/null || true
	printf '%s\n' "$out" | awk '/^custom/ {print $NF}'
}

printf '%-40s %12s %12s %8s\n' test rdmaperf peer ratio
for size in 64 4096; do
	count=$((size < 1024 ? 2000 : 500))
	a=$(rp -x rsocket -o W -S "$size" --no-bandwidth --warmup 50 \
		--lat-iterations "$count" |
		jget 'd["results"][0]["latency_unloaded"]["mean"]')
	b=$(rstream_us "$size" "$count")
	row "rsocket ${size}B half-rtt mean us (rstream)" "$a" "$b"
done
a=$(rp -x rsocket -o W -S 4096 -q 16 -t "$SECS" --no-latency |
	jget 'd["results"][0]["throughput"]["bits_per_second"]/1e9')
printf '%-40s %12.3f %12s\n' "rsocket 4096B q16 Gb/s (streaming)" "$a" "-"

iperf3 -s -1 -B "$ADDR" -p $((PORT + 1)) >/dev/null 2>&1 &
sleep 1
b=$(iperf3 -c "$ADDR" -p $((PORT + 1)) -l 65536 -t "$SECS" -J |
	jget 'd["end"]["sum_received"]["bits_per_second"]/1e9')
a=$(rp -x tcp -o W -S 65536 -q 16 -t "$SECS" --no-latency |
	jget 'd["results"][0]["throughput"]["bits_per_second"]/1e9')
row "tcp 64KiB Gb/s (iperf3)" "$a" "$b"
