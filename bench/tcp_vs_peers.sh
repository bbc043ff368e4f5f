#!/usr/bin/env bash
# rdmaperf over TCP on loopback, side by side with the peer tools, in one
# run, reported as ratios rdmaperf / peer (machines here are shared and
# noisy: only ratios measured together mean something). Each round runs
# every comparison once, alternating which tool goes first; the summary is
# the median over the rounds.
#
#   throughput: rdmaperf -x tcp -o write -P N  vs  iperf3 -P N, for N in
#               STREAMS (default "1 2 4"): same message size (iperf3 -l is
#               rdmaperf -S), same duration (-t), as many threads (iperf3
#               before 3.16 runs every stream in one thread: rdmaperf -T 1;
#               from 3.16 one thread a stream: -T N), pinned alike.
#     rdmaperf's figure: results[0].throughput.bits_per_second, the
#               aggregate over its N streams of the bytes of the messages
#               the receiver acknowledged in the -t window. Its sender
#               waits for the receiver's cumulative ack, so at most -q
#               messages a stream are in flight: -q x size must cover what
#               iperf3 keeps in flight, its socket send buffer (tcp_wmem's
#               maximum, 4 MiB by default) and what the receiver has not
#               read yet. DEPTH (default 128: 8 MiB at 64 KiB) does.
#     iperf3's figure: end.sum_received.bits_per_second, the sum over its N
#               streams of the bytes the server received, over the test's
#               duration: the receiver's side, as rdmaperf's.
#     Both count Gb/s as 10^9 bit/s. rdmaperf sets TCP_NODELAY, iperf3
#     does not (-N): for 64 KiB writes that makes no difference.
#   latency:    rdmaperf unloaded p50 (half round trip) vs sockperf
#               ping-pong p50 (also half round trip), same message size.
#     Polling differs, and on an idle machine it dominates small-message
#     latency: rdmaperf's client busy-polls (as perftest does); sockperf's
#     ping-pong waits in epoll, so each reply costs a wake-up (~50 us on an
#     idle VM here, ~1 us on a busy one). sockperf offers no busy-poll for
#     TCP that works here (-F r needs a feed file; --nonblocked fails to
#     connect).
# Targets: throughput ratio >= 1 for every N, latency ratio <= 1.
#
# Servers on CPU 1, clients on CPU 0, for every tool (RP_BENCH_PIN=0: let
# the scheduler place them): on a 2-core machine whether both ends land on
# one core decides loopback throughput more than either tool does.
#
# Usage: bench/tcp_vs_peers.sh [RDMAPERF] [SIZE] [SECONDS] [ROUNDS]
#   env: STREAMS ("1 2 4"), DEPTH (128), LAT_SIZE (64), RP_BENCH_PIN (1)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$HERE/common.sh"

RP=${1:-build/rdmaperf}
SIZE=${2:-65536}
SECS=${3:-3}
ROUNDS=${4:-3}
STREAMS=${STREAMS:-1 2 4}
DEPTH=${DEPTH:-128}
LAT_SIZE=${LAT_SIZE:-64}
HOST=127.0.0.1

bench_need "$RP" iperf3 sockperf python3
bench_pin

# iperf3 runs one thread a stream from 3.16 on, all streams in one before.
IPERF_VER=$(iperf3 --version 2>/dev/null | awk 'NR == 1 { print $2 }')
threads_for() { # threads_for N: rdmaperf -T matching iperf3 -P N
	if printf '%s\n' 3.16 "$IPERF_VER" | sort -V -C; then
		echo "$1"
	else
		echo 1
	fi
}

PORT_RP=$(bench_free_port $((20000 + RANDOM % 5000)))
PORT_IP=$(bench_free_port $((PORT_RP + 1)))
PORT_SP=$(bench_free_port $((PORT_IP + 1)))

pids=()
cleanup() {
	kill "${pids[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -f "${rows:-}"
}
trap cleanup EXIT

"${PIN_SRV[@]}" "$RP" -s -a "$HOST" -p "$PORT_RP" --quiet &
pids+=($!)
"${PIN_SRV[@]}" iperf3 -s -B "$HOST" -p "$PORT_IP" >/dev/null 2>&1 &
pids+=($!)
"${PIN_SRV[@]}" sockperf sr --tcp -i "$HOST" -p "$PORT_SP" >/dev/null 2>&1 &
pids+=($!)
for p in "$PORT_RP" "$PORT_IP" "$PORT_SP"; do
	bench_listening "$p" || { echo "bench: no server on port $p" >&2; exit 1; }
done

rp_bw() { # rp_bw N
	"${PIN_CLI[@]}" "$RP" -c -a "$HOST" -p "$PORT_RP" -x tcp -o W \
		-S "$SIZE" -q "$DEPTH" -P "$1" -T "$(threads_for "$1")" \
		-t "$SECS" --no-latency --json | jget "$JQ_GBPS"
}
ip_bw() { # ip_bw N
	"${PIN_CLI[@]}" iperf3 -c "$HOST" -p "$PORT_IP" -l "$SIZE" -P "$1" \
		-t "$SECS" -J |
		jget 'd["end"]["sum_received"]["bits_per_second"] / 1e9'
}
rp_lat() {
	"${PIN_CLI[@]}" "$RP" -c -a "$HOST" -p "$PORT_RP" -x tcp -o S \
		-S "$LAT_SIZE" --no-bandwidth --lat-iterations 50000 \
		--warmup 1000 --json | jget "$(jq_unloaded p50)"
}
sp_lat() {
	"${PIN_CLI[@]}" sockperf pp --tcp -i "$HOST" -p "$PORT_SP" \
		-m "$LAT_SIZE" -t "$SECS" 2>&1 |
		sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p' |
		grep . || echo nan
}

# pair ROUND WHAT RP_FN PEER_FN [ARG]: both tools, in the round's order.
rows=$(mktemp)
pair() {
	local r=$1 what=$2 a b
	if [ $((r % 2)) = 1 ]; then
		a=$($3 ${5:+"$5"}) || a=nan
		b=$($4 ${5:+"$5"}) || b=nan
	else
		b=$($4 ${5:+"$5"}) || b=nan
		a=$($3 ${5:+"$5"}) || a=nan
	fi
	printf '%s\t%s\t%s\n' "$what" "$a" "$b" >>"$rows"
	printf '%-6s ' "$r"
	bench_row "$what" "$a" "$b"
}

echo "== tcp on loopback: ${SIZE} B messages, ${SECS} s, rdmaperf -q $DEPTH;" \
	"iperf3 $IPERF_VER; $PIN_DESC"
printf '%-6s ' round
bench_header
for r in $(seq 1 "$ROUNDS"); do
	for n in $STREAMS; do
		pair "$r" "Gb/s write ${SIZE}B -P $n (iperf3 -P $n)" rp_bw ip_bw "$n"
	done
	pair "$r" "p50 us send ${LAT_SIZE}B (sockperf pp)" rp_lat sp_lat
done

echo
echo "== over $ROUNDS rounds: medians; the ratio paired round by round," \
	"its 95% interval and verdict (bench/paired.py)"
bench_sum_header
bench_medians "$rows"
