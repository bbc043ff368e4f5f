#!/usr/bin/env bash
# Latency at a fixed offered message rate over TCP on loopback: rdmaperf
# --rate against sockperf under-load (ul), the same message size and rate,
# side by side (p50 and p99), in one run.
#
# What each figure is (read from both tools' source and output):
# - sockperf ul sends at --mps messages/s from one thread and the server
#   echoes one in --reply-every (here 1: every message, as rdmaperf
#   acknowledges every one); it reports half the round trip of the echoed
#   messages, timed from the actual send, not from the intended one (no
#   correction for coordinated omission).
# - rdmaperf -x tcp -o send --rate R: the receiver acknowledges every
#   message (--signal 1, the default); "latency" is post to acknowledgement,
#   a whole round trip; "rate.latency_corrected" is the same from the
#   intended start on the schedule. Rows give rdmaperf's raw round trip
#   halved against sockperf's figure (like for like: both a round trip,
#   halved, timed from the send), then rdmaperf's corrected one, which
#   sockperf does not measure (its column repeats sockperf's figure, so the
#   ratio says how much the correction adds).
# Both wait asleep (rdmaperf --wait event; sockperf blocks in recvfrom and
# its server in epoll), -q 16 for rdmaperf (sockperf has no bound on what
# is in flight; at these rates neither reaches 16).
#
# Usage: bench/rate_vs_sockperf.sh [RDMAPERF] [SIZE] [SECONDS] [ROUNDS]
#   env: RATES ("10000 50000"), RP_BENCH_PIN (1: servers on CPU 1, clients
#   on CPU 0)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$HERE/common.sh"

RP=${1:-build/rdmaperf}
SIZE=${2:-64}
SECS=${3:-3}
ROUNDS=${4:-3}
RATES=${RATES:-10000 50000}
HOST=127.0.0.1

bench_need "$RP" sockperf python3
bench_pin

PORT_RP=$(bench_free_port $((20000 + RANDOM % 5000)))
PORT_SP=$(bench_free_port $((PORT_RP + 1)))
pids=()
tmp=$(mktemp -d)
cleanup() {
	kill "${pids[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

"${PIN_SRV[@]}" "$RP" -s -a "$HOST" -p "$PORT_RP" --quiet &
pids+=($!)
"${PIN_SRV[@]}" sockperf sr --tcp -i "$HOST" -p "$PORT_SP" >/dev/null 2>&1 &
pids+=($!)
for p in "$PORT_RP" "$PORT_SP"; do
	bench_listening "$p" || { echo "bench: no server on port $p" >&2; exit 1; }
done

# One run of each tool per round and rate, its figures kept in files.
rp_run() { # rp_run RATE ROUND
	"${PIN_CLI[@]}" "$RP" -c -a "$HOST" -p "$PORT_RP" -x tcp -o send \
		-S "$SIZE" -q 16 --wait event --rate "$1" -t "$SECS" \
		--no-latency --json >"$tmp/rp.$1.$2" || true
}
sp_run() { # sp_run RATE ROUND
	"${PIN_CLI[@]}" sockperf ul --tcp -i "$HOST" -p "$PORT_SP" -m "$SIZE" \
		--mps "$1" --reply-every 1 -t "$SECS" >"$tmp/sp.$1.$2" 2>&1 ||
		true
}
rp_fig() { # rp_fig FILE EXPR
	jget "$2" <"$1"
}
sp_pct() { # sp_pct FILE PCT: sockperf's percentile line, us
	sed -n "s/.*percentile $2 = *\([0-9.]*\).*/\1/p" "$1" | grep . ||
		echo nan
}

rows=$tmp/rows
echo "== tcp on loopback: ${SIZE} B send, ${SECS} s per run, rdmaperf -q 16" \
	"--wait event, sockperf ul --reply-every 1; $PIN_DESC"
for r in $(seq 1 "$ROUNDS"); do
	for rate in $RATES; do
		if [ $((r % 2)) = 1 ]; then
			rp_run "$rate" "$r"
			sp_run "$rate" "$r"
		else
			sp_run "$rate" "$r"
			rp_run "$rate" "$r"
		fi
		f=$tmp/rp.$rate.$r s=$tmp/sp.$rate.$r
		lat='d["results"][0]["latency"]'
		cor='d["results"][0]["rate"]["latency_corrected"]'
		ach='d["results"][0]["rate"]["achieved_ops_per_second"]'
		sp50=$(sp_pct "$s" 50.000)
		sp99=$(sp_pct "$s" 99.000)
		spn=$(sed -n 's/.*\[Valid Duration\].*SentMessages=\([0-9]*\).*/\1/p' \
			"$s" | head -1)
		spdur=$(sed -n 's/.*\[Valid Duration\] RunTime=\([0-9.]*\).*/\1/p' \
			"$s" | head -1)
		{
			printf 'msg/s achieved @%s\t%s\t%s\n' "$rate" \
				"$(rp_fig "$f" "$ach")" \
				"$(python3 -c "print(${spn:-0} / ${spdur:-0})" 2>/dev/null || echo nan)"
			printf 'p50 us rtt/2 @%s\t%s\t%s\n' "$rate" \
				"$(rp_fig "$f" "$lat[\"p50\"] / 2")" "$sp50"
			printf 'p99 us rtt/2 @%s\t%s\t%s\n' "$rate" \
				"$(rp_fig "$f" "$lat[\"p99\"] / 2")" "$sp99"
			printf 'p50 us corrected rtt/2 @%s\t%s\t%s\n' "$rate" \
				"$(rp_fig "$f" "$cor[\"p50\"] / 2")" "$sp50"
			printf 'p99 us corrected rtt/2 @%s\t%s\t%s\n' "$rate" \
				"$(rp_fig "$f" "$cor[\"p99\"] / 2")" "$sp99"
		} >>"$rows"
	done
done

echo "== over $ROUNDS rounds: medians; the ratio paired round by round," \
	"its 95% interval and verdict (bench/paired.py)"
bench_sum_header
bench_medians "$rows"
