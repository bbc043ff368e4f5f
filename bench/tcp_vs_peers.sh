#!/usr/bin/env bash
# rdmaperf over TCP on loopback, side by side with the peer tools, in one
# run, reported as ratios (machines here are shared and noisy: only ratios
# measured together mean something).
#   throughput: rdmaperf -x tcp -o write  vs  iperf3, one stream, same
#               message size (iperf3 -l), same duration
#   latency:    rdmaperf unloaded p50 (half round trip) vs sockperf
#               ping-pong p50 (also half round trip), same message size
# Targets: throughput ratio >= 1, latency ratio <= 1.
# Polling differs, and on an idle machine it dominates small-message
# latency: rdmaperf's client busy-polls (as perftest does); sockperf's
# ping-pong waits in epoll, so each reply costs a wake-up (~50 us on an
# idle VM here, ~1 us on a busy one). sockperf offers no busy-poll for TCP
# that works here (-F r needs a feed file; --nonblocked fails to connect).
# Usage: bench/tcp_vs_peers.sh [RDMAPERF] [SIZE] [SECONDS] [ROUNDS]
set -euo pipefail

RP=${1:-build/rdmaperf}
SIZE=${2:-65536}
SECS=${3:-3}
ROUNDS=${4:-3}
LAT_SIZE=${LAT_SIZE:-64}
HOST=127.0.0.1
PORT_RP=$((20000 + RANDOM % 5000))
PORT_IP=$((PORT_RP + 1))
PORT_SP=$((PORT_RP + 2))

for t in iperf3 sockperf python3; do
	command -v "$t" >/dev/null || { echo "bench: $t missing (scripts/install-deps.sh)" >&2; exit 77; }
done
[ -x "$RP" ] || { echo "bench: $RP not built" >&2; exit 1; }

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT

"$RP" -s -p "$PORT_RP" --quiet & pids+=($!)
iperf3 -s -p "$PORT_IP" >/dev/null 2>&1 & pids+=($!)
sockperf sr --tcp -i "$HOST" -p "$PORT_SP" >/dev/null 2>&1 & pids+=($!)
sleep 1

jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

rp_bw() {
	"$RP" -c -a "$HOST" -p "$PORT_RP" -x tcp -o W -S "$SIZE" -q 16 \
		-t "$SECS" --no-latency --json |
		jget 'd["results"][0]["throughput"]["bits_per_second"]/1e9'
}
ip_bw() {
	iperf3 -c "$HOST" -p "$PORT_IP" -l "$SIZE" -t "$SECS" -J |
		jget 'd["end"]["sum_received"]["bits_per_second"]/1e9'
}
rp_lat() {
	"$RP" -c -a "$HOST" -p "$PORT_RP" -x tcp -o S -S "$LAT_SIZE" \
		--no-bandwidth --lat-iterations 50000 --warmup 1000 --json |
		jget 'd["results"][0]["latency_unloaded"]["p50"]'
}
sp_lat() {
	sockperf pp --tcp -i "$HOST" -p "$PORT_SP" -m "$LAT_SIZE" -t "$SECS" 2>&1 |
		sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p'
}

printf '%-6s %-28s %12s %12s %8s\n' round metric rdmaperf peer ratio
for r in $(seq 1 "$ROUNDS"); do
	a=$(rp_bw); b=$(ip_bw)
	printf '%-6s %-28s %12.3f %12.3f %8.3f\n' "$r" \
		"Gb/s write ${SIZE}B (iperf3)" "$a" "$b" \
		"$(python3 -c "print($a/$b)")"
	a=$(rp_lat); b=$(sp_lat)
	printf '%-6s %-28s %12.3f %12.3f %8.3f\n' "$r" \
		"p50 us ${LAT_SIZE}B (sockperf)" "$a" "$b" \
		"$(python3 -c "print($a/$b)")"
done
